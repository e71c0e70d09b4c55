// placeholder replaced when the fixture dataset build lands
export default async function setup(): Promise<void> {}
