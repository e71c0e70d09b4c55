/**
 * The side panel (a bottom sheet on a narrow screen): a title and sections, each drawn from one
 * API answer and ending with that request (`GET /api/v1/…`, or the POST and its body) as a
 * button that shows the JSON answer it came from, in the panel.
 */

const panel = () => document.getElementById('panel')
const body = () => document.getElementById('panel-body')

/** An element with attributes and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue
    if (k === 'class') e.className = v
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v)
    else e.setAttribute(k, v)
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c)
  return e
}

/** A definition list of the pairs whose value is given. */
export function facts(pairs) {
  const dl = el('dl')
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') dl.append(el('dt', {}, k), el('dd', {}, v))
  return dl
}

/** Empties the panel, titles it and shows it; answers the element sections go into. */
export function openPanel(title) {
  const b = body()
  b.replaceChildren(el('h2', {}, title))
  panel().hidden = false
  document.body.classList.add('panel-open')
  b.scrollTop = 0
  return b
}

export function closePanel() {
  panel().hidden = true
  document.body.classList.remove('panel-open')
}

/** A line in the panel (progress, a hint). */
export function note(container, text) {
  const p = el('p', { class: 'note' }, text)
  container.append(p)
  return p
}

/** The text of an error answer: its status, code and message. */
export function errorText(answer) {
  const j = answer.json ?? {}
  return `${answer.status || 'no answer'} ${j.error ?? ''}: ${j.message ?? 'the request failed'}`
}

/**
 * A section drawn from `answer` (api.call): `render(json)` for a 2xx, else the error's code and
 * message; `fallback(answer)` may draw an error answer itself (a 404 with a nearest hint).
 */
export function section(container, title, answer, render, fallback) {
  const ok = answer.status >= 200 && answer.status < 300
  const content = ok ? render(answer.json) : (fallback?.(answer) ?? el('p', { class: 'error' }, errorText(answer)))
  const pre = el('pre', { class: 'json', hidden: '' })
  const request = `${answer.method} ${answer.url}`
  const button = el(
    'button',
    {
      type: 'button',
      class: 'request',
      title: 'Show the JSON answer of this request',
      'aria-expanded': 'false',
      onclick: () => {
        const show = pre.hidden
        if (show)
          pre.textContent =
            (answer.body === undefined
              ? ''
              : `request body:\n${JSON.stringify(answer.body, null, 2)}\n\nanswer ${answer.status}:\n`) +
            JSON.stringify(answer.json, null, 2)
        pre.hidden = !show
        button.setAttribute('aria-expanded', String(show))
      },
    },
    request,
  )
  const s = el('section', { 'data-status': String(answer.status) }, el('h3', {}, title), content, button, pre)
  container.append(s)
  return s
}

/**
 * The padding that keeps a fitted view clear of what covers the map: the panel (on the right,
 * or at the bottom as a sheet) and the legend when it shows.
 */
export function viewPadding(margin = 30) {
  const pad = { top: margin, right: margin, bottom: margin, left: margin }
  const map = document.getElementById('map').getBoundingClientRect()
  if (!panel().hidden) {
    const r = panel().getBoundingClientRect()
    if (r.width >= map.width - 1) pad.bottom += r.height
    else pad.right += r.width
  }
  const legend = document.getElementById('legend').getBoundingClientRect()
  if (legend.width > 0 && legend.width < map.width / 2) pad.left += legend.right - map.left
  return pad
}
