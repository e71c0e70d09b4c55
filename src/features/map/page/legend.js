/**
 * The legend: one checkbox per layer item (parcel type, plot layer, encumbrance class,
 * boundary type) with its colour, grouped by tile set. An item whose layer starts at a deeper
 * zoom than the view says from which zoom it appears. Toggles go to `onToggle(id, visible)`.
 */

function swatch(item) {
  const s = document.createElement('span')
  s.className = `swatch${item.points ? ' point' : item.fill ? ' area' : ''}${item.dash ? ' dashed' : ''}`
  s.style.setProperty('--c', item.colour)
  return s
}

/** Fills `el` with the legend of `entries` (from layers.addTileSets); `off` holds the hidden ids. */
export function renderLegend(el, entries, off, onToggle) {
  el.replaceChildren()
  const heading = document.createElement('h2')
  heading.textContent = 'Layers'
  el.append(heading)
  const groups = new Map()
  for (const e of entries) {
    if (!groups.has(e.group.id)) groups.set(e.group.id, { group: e.group, entries: [] })
    groups.get(e.group.id).entries.push(e)
  }
  for (const { group, entries: list } of groups.values()) {
    const fieldset = document.createElement('fieldset')
    const legend = document.createElement('legend')
    legend.textContent = group.title
    fieldset.append(legend)
    for (const e of list) {
      const label = document.createElement('label')
      label.dataset.minzoom = String(e.minzoom)
      const box = document.createElement('input')
      box.type = 'checkbox'
      box.checked = !off.has(e.id)
      box.dataset.toggle = e.id
      box.addEventListener('change', () => onToggle(e.id, box.checked))
      const name = document.createElement('span')
      name.className = 'name'
      name.textContent = e.item.label
      const hint = document.createElement('small')
      hint.textContent = e.minzoom > 0 ? `z${e.minzoom}+` : ''
      hint.title = `drawn from zoom ${e.minzoom}`
      label.append(box, swatch(e.item), name, hint)
      fieldset.append(label)
    }
    el.append(fieldset)
  }
  const credit = document.createElement('p')
  credit.className = 'credit'
  credit.textContent =
    'Basemap: Natural Earth; boundaries: Municipal Demarcation Board. Parcels are the dataset served.'
  el.append(credit)
}

/** Greys the items whose layer does not show at `zoom`. */
export function markZoom(el, zoom) {
  for (const label of el.querySelectorAll('label[data-minzoom]'))
    label.classList.toggle('below-zoom', zoom < Number(label.dataset.minzoom))
}
