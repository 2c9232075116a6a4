/**
 * The one way the viewer makes DOM: `h(tag, attrs, ...children)`. Children that are strings
 * become text nodes and attribute values go through setAttribute, so a user value (an op name,
 * a key, an input) is always text, never markup. Nothing in the viewer assigns innerHTML.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const c of child) append(parent, c);
  else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
      continue;
    }
    if (value === null || value === undefined || value === false) continue;
    // Links only ever go to a view of this page (#...) or to this server: never javascript: or elsewhere.
    if (name === 'href' && !String(value).startsWith('#')) throw new Error(`h: refusing href ${String(value)}`);
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Replaces the children of `parent`. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
