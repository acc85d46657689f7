import Database from 'better-sqlite3';
const times = new Map<string, { n: number; ms: number }>();
const origPrepare = (Database as any).prototype.prepare;
(Database as any).prototype.prepare = function (src: string) {
  const stmt = origPrepare.call(this, src);
  for (const m of ['all', 'run', 'get', 'iterate']) {
    const f = stmt[m];
    if (!f) continue;
    stmt[m] = function (...args: unknown[]) {
      const t = process.hrtime.bigint();
      try { return f.apply(this, args); } finally {
        const e = times.get(src) ?? { n: 0, ms: 0 };
        e.n++; e.ms += Number(process.hrtime.bigint() - t) / 1e6; times.set(src, e);
      }
    };
  }
  return stmt;
};
const { buildApp } = await import('/work/main/packages/server/src/app.ts');
const { loadConfig } = await import('/work/main/packages/server/src/config.ts');
const config = loadConfig({}, { dataDir: process.env.DATA_DIR!, databaseUrl: null, logLevel: 'silent', webDist: null });
const lectern = await buildApp(config);
const url = process.argv[2]!;
let headers: Record<string, string> = {};
if (process.env.SIGN_IN) {
  const h = await lectern.app.inject({ url: '/healthz' });
  const csrf = (h.headers['set-cookie'] as string[] | string).toString().match(/csrftoken=([^;]+)/)![1]!;
  const login = await lectern.app.inject({ method: 'POST', url: '/login/', headers: { 'content-type': 'application/json', origin: 'http://localhost', host: 'localhost', cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf }, payload: JSON.stringify({ email: 'reader1@bench.example', password: 'bench password of the scale library' }) });
  if (login.statusCode >= 300) throw new Error(login.body);
  const cookies = ([] as string[]).concat(login.headers['set-cookie'] as string[]).map((c) => c.split(';')[0]).join('; ');
  headers = { cookie: cookies };
}
for (let i = 0; i < 10; i++) await lectern.app.inject({ url, headers });
times.clear();
const n = Number(process.env.N ?? 50);
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) await lectern.app.inject({ url, headers });
const total = Number(process.hrtime.bigint() - t0) / 1e6 / n;
const sqlMs = [...times.values()].reduce((a, b) => a + b.ms, 0) / n;
console.log(url, 'ms/request', total.toFixed(2), 'sql', sqlMs.toFixed(2));
for (const [src, e] of [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) console.log((e.ms / n).toFixed(3), 'ms', (e.n / n).toFixed(1), 'x', src.replace(/\s+/g, ' ').slice(0, 160));
await lectern.app.close();
