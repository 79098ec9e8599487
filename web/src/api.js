// The kibitz HTTP API, with the player's bearer token when there is one.

const KEY = "kibitz.player";

export function me() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

export function remember(player) {
  localStorage.setItem(KEY, JSON.stringify(player));
}

function authorized(headers) {
  const player = me();
  if (player?.token) headers.Authorization = `Bearer ${player.token}`;
  return headers;
}

export async function api(method, path, body) {
  const headers = authorized({ Accept: "application/json" });
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 204) return null;
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const message = data?.error?.message || `${res.status} ${res.statusText}`;
    throw Object.assign(new Error(message), { status: res.status, code: data?.error?.code });
  }
  return data;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v != null) node.setAttribute(k, v);
  }
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

/// An SVG element, as `el` makes HTML ones.
export function svg(tag, attrs = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/// Saves what `path` answers as a file; a plain link would carry no token.
export async function download(path, filename) {
  const res = await fetch(path, { headers: authorized({}) });
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
  const url = URL.createObjectURL(await res.blob());
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
