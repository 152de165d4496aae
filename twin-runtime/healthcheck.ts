// Container health check: asks the twin's own /_twin/health (with its admin secret) and exits 0
// when it answers 200. Docker's HEALTHCHECK runs it inside the container.

const port = process.env.TWIN_PORT ?? '8080';
const host = process.env.TWIN_HOST ?? '127.0.0.1';
try {
  const res = await fetch(`http://${host}:${port}/_twin/health`, {
    headers: { 'x-twin-admin-secret': process.env.TWIN_ADMIN_SECRET ?? '' },
    signal: AbortSignal.timeout(1500),
  });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
