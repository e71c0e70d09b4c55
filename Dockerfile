# Land-data API: a small Node 26 LTS image at an exact tag (docs/operations.md "Node.js version").
# The dataset is mounted at /data/dataset (the default), or built into the image when asked:
# --build-arg DATASET=baked [--build-arg SCALE=sample] (docs/operations.md "Docker").
# scripts/docker-stages.sh replays these stages without Docker.
ARG DATASET=mounted

FROM node:26.12.0-trixie-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary is reachable, and `npm run build`
# compiles native/mmap.c (the index files' memory-mapping; optional, see README)
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM build AS dataset-baked
ARG SCALE=sample
ARG SEED=1
RUN node dist/synth.js --scale ${SCALE} --seed ${SEED} --out /tmp/source \
 && node dist/build-index.js --source /tmp/source --out /data/dataset \
 && node dist/verify.js /data/dataset

FROM node:26.12.0-trixie-slim AS dataset-mounted
RUN mkdir -p /data/dataset

FROM dataset-${DATASET} AS dataset

FROM build AS prod-deps
RUN npm ci --omit=dev

FROM node:26.12.0-trixie-slim
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATASET_DIR=/data/dataset KEYS_DB=/data/keys/keys.db WORKERS=1
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/native/build/Release/mmap.node ./native/build/Release/mmap.node
COPY package.json LICENSE ./
COPY --from=dataset /data/dataset /data/dataset
RUN mkdir -p /data/keys && chown -R node:node /data/keys
USER node
VOLUME ["/data/keys"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server.js"]
