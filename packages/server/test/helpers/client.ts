/**
 * A cookie-keeping client over app.inject (the full Fastify request lifecycle, no socket): it behaves like the web
 * app — reads the csrftoken cookie and sends it as X-CSRFToken on unsafe methods.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Lectern } from '../../src/app.ts';

export class TestClient {
  readonly cookies = new Map<string, string>();
  constructor(private readonly app: FastifyInstance) {}

  async request(
    method: InjectOptions['method'],
    url: string,
    opts: { json?: unknown; headers?: Record<string, string>; csrf?: boolean; payload?: string | Buffer } = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    const unsafe = !['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(String(method));
    if (unsafe && opts.csrf !== false && !this.cookies.has('csrftoken')) await this.request('GET', '/healthz');
    if (unsafe && opts.csrf !== false && this.cookies.get('csrftoken')) headers['x-csrftoken'] ??= this.cookies.get('csrftoken')!;
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.app.inject({
      method,
      url,
      headers,
      ...(opts.json !== undefined ? { payload: opts.json as object } : opts.payload !== undefined ? { payload: opts.payload } : {}),
    });
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now()) || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  get = (url: string, headers?: Record<string, string>) => this.request('GET', url, { headers });
  post = (url: string, json?: unknown, opts: { headers?: Record<string, string>; csrf?: boolean } = {}) =>
    this.request('POST', url, { json: json ?? {}, ...opts });

  async login(email: string, password: string): Promise<LightMyRequestResponse> {
    const res = await this.post('/login/', { email, password });
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
    return res;
  }
}

/** Creates subscribers with these emails and returns a signed-in client for each, in order. */
export async function signedInSubscribers<const E extends readonly string[]>(
  lectern: Lectern,
  emails: E,
  password = 'a long enough password',
): Promise<{ [K in keyof E]: TestClient }> {
  const clients: TestClient[] = [];
  for (const email of emails) {
    await lectern.services.accounts.createUser({ email, password, status: 'subscriber' });
    const client = new TestClient(lectern.app);
    await client.login(email, password);
    clients.push(client);
  }
  return clients as { [K in keyof E]: TestClient };
}

/** How many of each status code, e.g. { 201: 1, 400: 199 }. */
export function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}
