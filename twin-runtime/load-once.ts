// What a twin rarely needs is loaded on its first use rather than at start (each of these packages
// cost a twin's start 100-200 ms or several MiB): the loader runs once, later calls get the same
// module, or the same pending import.

export function loadOnce<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
