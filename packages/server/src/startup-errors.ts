/**
 * The errors an operator meets at start, said in one line each (no stack trace): main.ts and the command line
 * print it and exit with code 2. Anything not recognised here is a bug and keeps its stack trace.
 */

export type StartupPhase = 'database' | 'listen';

interface Where {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
}

/** The code of a network or PostgreSQL error; AggregateError (IPv4 and IPv6 both refused) carries it on its parts. */
function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: unknown[] } | null;
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors)) return e.errors.map(codeOf).find(Boolean);
  return undefined;
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/** DATABASE_URL without its password, for messages. */
export function shownDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

function databaseServer(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || 5432}`;
  } catch {
    return 'the DATABASE_URL server';
  }
}

export function describeStartupError(err: unknown, phase: StartupPhase, where: Where): string | null {
  const code = codeOf(err);
  if (phase === 'listen') {
    const at = `${where.host}:${where.port}`;
    switch (code) {
      case 'EADDRINUSE':
        return `Cannot listen on ${at}: port ${where.port} is already in use by another program. Stop it, or set PORT to a free port.`;
      case 'EACCES':
        return `Cannot listen on ${at}: not allowed to use port ${where.port} (ports below 1024 need privileges). Set PORT to 1024 or above.`;
      case 'EADDRNOTAVAIL':
        return `Cannot listen on ${at}: HOST ${where.host} is not an address of this machine. Set HOST to 127.0.0.1 (this machine only) or 0.0.0.0 (every network).`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_NONAME':
        return `Cannot listen on ${at}: HOST "${where.host}" is not a known host name. Set HOST to 127.0.0.1 (this machine only) or 0.0.0.0 (every network).`;
      default:
        return null;
    }
  }

  if (code === 'LECTERN_LIBRARY_IN_USE') {
    return `Cannot start: another Lectern server is already using DATA_DIR ${where.dataDir} (SQLite serves one server). Stop it first, or run several servers on PostgreSQL (DATABASE_URL).`;
  }
  if (!where.databaseUrl) {
    if (code === 'EACCES' || code === 'EROFS' || code === 'ENOTDIR' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
      return `Cannot use DATA_DIR ${where.dataDir}: ${messageOf(err)}. Make it a folder this user can write, or set DATA_DIR elsewhere.`;
    }
    return null;
  }
  const url = shownDatabaseUrl(where.databaseUrl);
  const server = databaseServer(where.databaseUrl);
  // pg says so in words, with no code: the client's "connection timeout", the pool's "timeout exceeded when trying to connect"
  if (!code && /timeout/i.test(messageOf(err))) {
    return `Cannot reach the PostgreSQL server at ${server} (DATABASE_URL ${url}): no answer within the connect timeout (DATABASE_CONNECT_TIMEOUT_SECONDS).`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `Cannot reach the PostgreSQL server at ${server} (DATABASE_URL ${url}): connection refused. Is PostgreSQL running there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach the PostgreSQL server at ${server} (DATABASE_URL ${url}): the host name does not resolve.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
      return `Cannot reach the PostgreSQL server at ${server} (DATABASE_URL ${url}): ${code}.`;
    // 28000: no such role, or pg_hba.conf refuses it; 28P01: wrong password.
    case '28000':
    case '28P01':
      return `PostgreSQL at ${server} refused the credentials in DATABASE_URL (${url}): ${messageOf(err)}.`;
    case '3D000':
      return `PostgreSQL at ${server}: ${messageOf(err)}. Create it (createdb) or fix DATABASE_URL (${url}).`;
    case '42501':
      return `PostgreSQL at ${server}: the role in DATABASE_URL (${url}) may not create Lectern's tables: ${messageOf(err)}.`;
    case '57P03':
      return `PostgreSQL at ${server} is starting up or shutting down: try again in a moment.`;
    default:
      return null;
  }
}
