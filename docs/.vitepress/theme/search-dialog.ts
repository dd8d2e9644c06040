/**
 * VitePress's search dialog, given the roles of what it is: a dialog with a search field and a list
 * of links. VitePress marks the box a `button` around everything, each result an `option` around
 * its link, and each link with a label that leaves out its visible text; axe-core reports all three
 * (nested-interactive, label-content-name-mismatch), and a label on its footer's keys that a `kbd`
 * may not carry (aria-prohibited-attr); a screen reader announces a button that
 * contains a form. Arrow keys and Enter still move through the results as before (VitePress handles
 * them in script); the links are reached with Tab as well. The attributes are corrected whenever
 * VitePress sets them again.
 */
const DROPPED: Record<string, string[]> = {
  '.VPLocalSearchBox': ['aria-owns', 'aria-expanded', 'aria-haspopup', 'aria-labelledby'],
  '.VPLocalSearchBox input': ['aria-activedescendant', 'aria-autocomplete', 'aria-controls'],
  '.VPLocalSearchBox .results': ['role', 'aria-labelledby'],
  '.VPLocalSearchBox .results > li': ['role', 'aria-selected'],
  '.VPLocalSearchBox .results > li > a': ['aria-label'],
}

const correct = (root: ParentNode) => {
  const box = root.querySelector('.VPLocalSearchBox')
  if (box === null) return
  if (box.getAttribute('role') !== 'dialog') box.setAttribute('role', 'dialog')
  if (box.getAttribute('aria-modal') !== 'true') box.setAttribute('aria-modal', 'true')
  // Its label element holds only an icon (named by a tooltip), which leaves the dialog unnamed.
  if (box.getAttribute('aria-label') !== 'Search') box.setAttribute('aria-label', 'Search')
  // The footer's keys are icons named by a label, which a plain `kbd` may not carry: images of keys.
  for (const key of root.querySelectorAll('.VPLocalSearchBox kbd[aria-label]:not([role])')) key.setAttribute('role', 'img')
  for (const [selector, names] of Object.entries(DROPPED))
    for (const element of root.querySelectorAll(selector))
      for (const name of names) if (element.hasAttribute(name)) element.removeAttribute(name)
}

/** Keeps the search dialog's roles right for as long as the page lives (in the browser only). */
export const watchSearchDialog = () => {
  const observer = new MutationObserver(() => correct(document))
  observer.observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: [
      'role',
      'aria-label',
      'aria-selected',
      'aria-owns',
      'aria-activedescendant',
      'aria-controls',
      'aria-labelledby',
    ],
  })
  correct(document)
}
