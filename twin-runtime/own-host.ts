// A twin's own loopback address: where a twin whose clients match hosts without ports (`gh` inside a
// git clone) is also served on the default HTTPS port. One per gateway port, so no two twins of a
// machine share one: `http://127.0.0.1:41234` → `https://127.161.18.1`.

export function loopbackHostFor(port: number): string {
  return `127.${(port >> 8) & 255}.${port & 255}.1`;
}

/** The host `gh` should be given for a twin URL: its own loopback address locally, the URL's host name in a cluster. */
export function ghHostFor(twinUrl: string): string {
  const u = new URL(twinUrl);
  return u.port && u.hostname === '127.0.0.1' ? loopbackHostFor(Number(u.port)) : u.host;
}
