/**
 * The one SQL seam shared by both engines. Statements are written once with `?`
 * placeholders; PostgreSQL gets them numbered. Hot paths (claims, leases, webhook
 * ingestion) go through here with the plain drivers, because an ORM round trip per
 * statement costs more than the whole statement on SQLite.
 *
 * SQLite is one connection in one process. better-sqlite3 is synchronous, so a
 * transaction is only unsafe when its body awaits: other callers could then slip their
 * statements into it. A small async lock keeps every statement outside a transaction
 * waiting until the open transaction commits (the fast path, no transaction open, runs
 * the statement straight away).
 *
 * Masking is a property of this seam: every string parameter of every statement (and
 * every string in an array parameter) passes the database's masker, reads as well as
 * writes, so a key or id that holds a secret is looked up in the same masked form it was
 * stored in. Only the secrets table, which holds ciphertext, is reached through
 * `unmasked`. The masker is the caller's (the engine's secrets/masker.ts); this seam only
 * needs the small `ParamMasker` (param-masker.ts).
 *
 * A batch is one array parameter, so a statement's text never varies with its size
 * (batch.ts): a list of values is a PostgreSQL array (`= ANY(?)`) or, on SQLite, JSON
 * text (`IN (SELECT value FROM json_each(?))`); rows are JSON text on both, but for the
 * small batches of events and checkpoints SQLite gets as a VALUES list.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { batchText } from './batch.ts';
import { postgresOpenError, redactUrl, sqliteOpenError } from './db-errors.ts';
import { maskParams, MASKS_NOTHING, type ParamMasker } from './param-masker.ts';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';

export { redactUrl };
export type { ParamMasker };

export type Dialect = 'sqlite' | 'postgresql';
export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: Dialect;
  /** Rows of a query, or of a statement with RETURNING. */
  all<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Adds `row` to the rows `statement` writes at the commit: its one parameter is the
   * batch (an array of rows, read with json_each on SQLite). On SQLite, inside a group
   * commit, the rows of every job not rolled back are written by one statement after the
   * last job's savepoint is released: SQLite's full-text index writes out what it holds
   * at every savepoint and every statement after a write, so it makes one segment a
   * commit instead of one a row. The job's own later statements do not see those rows,
   * and a batch that fails fails the whole commit. Anywhere else (outside a transaction,
   * on PostgreSQL) the row is written at once, as a batch of one.
   */
  batchAtCommit(statement: string, row: readonly unknown[]): Promise<void>;
}

export interface Db<M extends ParamMasker = ParamMasker> extends Sql {
  /**
   * Wakes listeners in other processes (PostgreSQL NOTIFY); a no-op on SQLite, where the
   * one process wakes its worker directly.
   */
  notify(channel: string): void;
  /** Calls `onNotify` for every notification on `channel`; returns a stop function. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Commits when `body` resolves, rolls back when it throws. Not re-entrant, and the body
   * must only run statements on `tx` (no other waiting): on SQLite concurrent transactions
   * share one commit.
   */
  transaction<T>(body: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * For a single statement that must be durable before the caller goes on (a claim, a
   * lease): on SQLite it joins the next group commit instead of paying for a commit of
   * its own; on PostgreSQL it runs as it is, one round trip.
   */
  durably<T>(body: (sql: Sql) => Promise<T>): Promise<T>;
  /** Replaces secrets' values in every string parameter; the secret service keeps it current. */
  readonly masker: M;
  /** Statements whose parameters skip the masker: only for the secrets table (ciphertext). */
  readonly unmasked: Sql;
  close(): Promise<void>;
  /** Where the database is, without any password, for messages. */
  readonly description: string;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export interface DatabaseOptions<M extends ParamMasker> {
  /** (default: one that masks nothing) */
  masker?: M;
}

export async function openDatabase<M extends ParamMasker = ParamMasker>(url: string, options: DatabaseOptions<M> = {}): Promise<Db<M>> {
  const masker = options.masker ?? (MASKS_NOTHING as M);
  return isPostgresUrl(url) ? openPostgres(url, masker) : openSqlite(url.replace(/^file:/, ''), masker);
}

// ---------------------------------------------------------------- SQLite

function openSqlite<M extends ParamMasker>(path: string, masker: M): Db<M> {
  let raw: Database.Database;
  try {
    raw = new Database(path, { timeout: 5000 });
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    // Group commit wraps each transaction in a SAVEPOINT, whose journal of original pages
    // would otherwise be a temporary file: a system call per page, tripling each insert.
    raw.pragma('temp_store = MEMORY');
    // Checkpoints run on their own thread (sqlite-checkpointer.ts); this is the safety net.
    raw.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    // Reading one page proves the file is a database before anything is written to it.
    raw.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw sqliteOpenError(path, error);
  }
  const db = raw;
  const checkpointer: Checkpointer | undefined = path === ':memory:' || path === '' ? undefined : startCheckpointer(path);
  // Statements are found by their text, so every lookup hashes the text it is given. A
  // constant's hash is kept with it; a text built at each call is a new string hashed in
  // full every time (2.5–3 µs for a new run's 800-character INSERT, 0.06 µs as a constant),
  // so statements on a hot path are written out once, when their module loads.
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  // The rows the job being run added to batches written at the commit (Sql.batchAtCommit),
  // by statement; null outside a group commit's jobs, where a row is written at once.
  let jobBatches: Map<string, unknown[]> | null = null;
  const sqliteSql = (mask: ParamMasker | null): Sql => ({
    dialect: 'sqlite',
    async all<T>(sql: string, params: readonly unknown[] = []) {
      const statement = prepare(sql);
      if (statement.reader) return statement.all(...sqliteParams(params, mask)) as T[];
      statement.run(...sqliteParams(params, mask));
      return [];
    },
    async get<T>(sql: string, params: readonly unknown[] = []) {
      return prepare(sql).get(...sqliteParams(params, mask)) as T | undefined;
    },
    async run(sql: string, params: readonly unknown[] = []) {
      return prepare(sql).run(...sqliteParams(params, mask)).changes;
    },
    async exec(script: string) {
      db.exec(script);
    },
    async batchAtCommit(statement: string, row: readonly unknown[]) {
      if (!jobBatches) {
        prepare(statement).run(...sqliteParams([[row]], mask));
        return;
      }
      // Masked now, as the statement's parameters would be: the batch is written unmasked.
      const rows = jobBatches.get(statement) ?? [];
      rows.push(mask ? maskParams(row, mask) : row);
      jobBatches.set(statement, rows);
    },
  });
  const direct = sqliteSql(masker);
  const directUnmasked = sqliteSql(null);

  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  // A FIFO lock held by an open transaction: each release hands it to exactly one waiter,
  // instead of waking every waiter to race for it.
  let locked = false;
  const waiters: (() => void)[] = [];
  const acquire = (): Promise<void> | undefined => {
    if (!locked) {
      locked = true;
      return undefined;
    }
    return new Promise<void>((resolve) => waiters.push(resolve));
  };
  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else locked = false;
  };
  /*
   * Group commit. A commit is a write to the WAL (tens of microseconds); the statements in
   * it cost one or two each. Transactions that arrive while one is being written are
   * gathered and committed together, each inside its own SAVEPOINT, so one that throws is
   * rolled back alone and the others commit. Nobody's promise resolves before COMMIT.
   */
  interface Job {
    body: (tx: Sql) => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }
  let pending: Job[] = [];
  let scheduled = false;
  const savepoint = db.prepare('SAVEPOINT job');
  const releaseSavepoint = db.prepare('RELEASE job');
  const rollbackSavepoint = db.prepare('ROLLBACK TO job');
  // Rows already masked when they were added (batchAtCommit).
  const writeBatches = (batches: Map<string, unknown[]>) => {
    for (const [statement, rows] of batches) prepare(statement).run(...sqliteParams([rows], null));
  };
  const drain = async (): Promise<void> => {
    await acquire();
    // Waits while the checkpointer has the WAL start over (sqlite-checkpointer.ts), a few
    // ms: jobs that arrive meanwhile join this commit.
    const paused = checkpointer?.writeStarting();
    if (paused) await paused;
    scheduled = false;
    const jobs = pending;
    pending = [];
    const settle: (() => void)[] = [];
    try {
      // IMMEDIATE takes the write lock up front: a deferred transaction that reads and
      // then writes fails with SQLITE_BUSY_SNAPSHOT and ignores the busy timeout.
      begin.run();
      // The rows of the jobs not rolled back for batches written at the commit (Sql.batchAtCommit).
      const batches = new Map<string, unknown[]>();
      if (jobs.length === 1) {
        // Alone in its commit, a job needs no savepoint: failing rolls back everything.
        const job = jobs[0]!;
        try {
          jobBatches = batches;
          const value = await job.body(direct);
          jobBatches = null;
          writeBatches(batches);
          settle.push(() => job.resolve(value));
        } catch (error) {
          jobBatches = null;
          rollback.run();
          job.reject(error);
          return;
        }
      } else {
        for (const job of jobs) {
          savepoint.run();
          const added = new Map<string, unknown[]>();
          try {
            jobBatches = added;
            const value = await job.body(direct);
            jobBatches = null;
            releaseSavepoint.run();
            for (const [statement, rows] of added) {
              const gathered = batches.get(statement);
              if (gathered) gathered.push(...rows);
              else batches.set(statement, rows);
            }
            settle.push(() => job.resolve(value));
          } catch (error) {
            jobBatches = null;
            rollbackSavepoint.run();
            releaseSavepoint.run();
            settle.push(() => job.reject(error));
          }
        }
        // Outside every savepoint; one that fails fails the whole commit (below).
        writeBatches(batches);
      }
      commit.run();
      for (const done of settle) done();
    } catch (error) {
      jobBatches = null;
      if (db.inTransaction) rollback.run();
      for (const job of jobs) job.reject(error);
    } finally {
      checkpointer?.writeEnded();
      release();
      if (pending.length > 0 && !scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    }
  };

  // Outside a transaction a statement runs at once (better-sqlite3 is synchronous), or
  // queues behind the open transaction so it cannot slip into it.
  const outside = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (!locked) return fn(...args);
      await acquire();
      try {
        return await fn(...args);
      } finally {
        release();
      }
    };

  return {
    dialect: 'sqlite',
    description: `SQLite database ${path}`,
    notify() {},
    async listen() {
      return async () => {};
    },
    all: outside(direct.all) as Sql['all'],
    get: outside(direct.get) as Sql['get'],
    run: outside(direct.run),
    exec: outside(direct.exec),
    batchAtCommit: outside(direct.batchAtCommit),
    masker,
    unmasked: {
      dialect: 'sqlite',
      all: outside(directUnmasked.all) as Sql['all'],
      get: outside(directUnmasked.get) as Sql['get'],
      run: outside(directUnmasked.run),
      exec: outside(directUnmasked.exec),
      batchAtCommit: outside(directUnmasked.batchAtCommit),
    },
    durably<T>(body: (sql: Sql) => Promise<T>): Promise<T> {
      return this.transaction(body);
    },
    transaction<T>(body: (tx: Sql) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ body, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(drain);
        }
      });
    },
    async close() {
      await acquire();
      await checkpointer?.stop();
      db.close();
    },
  };
}

// SQLite has no arrays: an array parameter arrives as JSON text, read with json_each.
function sqliteParams(params: readonly unknown[], masker: ParamMasker | null): unknown[] {
  const masked = masker ? maskParams(params, masker) : params;
  return masked.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    // Well-formed before the driver sees it, whatever Node does with half an emoji (batch.ts).
    if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
    return Array.isArray(value) ? batchText(value) : value;
  });
}

// ---------------------------------------------------------------- PostgreSQL

// BIGINT columns hold millisecond times and counters, all far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const numbered = new Map<string, string>();
function toPostgres(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let index = 0;
    text = sql.replace(/\?/g, () => `$${++index}`);
    numbered.set(sql, text);
  }
  return text;
}

/*
 * Statements are named, so each connection parses and plans one only the first time it
 * runs it: an unnamed statement is planned again at every call, which for the webhook
 * intake's one WITH statement cost more than executing it. Texts that vary with their
 * arguments (lists of ids, batches of rows) would name without end, so naming stops at a
 * bound and later texts run unnamed. Statements name their columns (no `SELECT *`), so a
 * column added by a newer server's migration does not invalidate a prepared plan here.
 */
const MAX_NAMED_STATEMENTS = 500;
const statementNames = new Map<string, string>();
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `onceflow_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

// A batch of rows (an array of arrays) arrives as JSON text, which costs less to write
// than one PostgreSQL array per column; a list of values stays an array (`= ANY(?)`).
function postgresParams(params: readonly unknown[]): unknown[] {
  return params.map((value) => (Array.isArray(value) && Array.isArray(value[0]) ? batchText(value) : value));
}

function postgresSql(client: pg.Pool | pg.PoolClient, masker: ParamMasker | null): Sql {
  const query = (sql: string, params: readonly unknown[]) => {
    const text = toPostgres(sql);
    const values = postgresParams(masker ? maskParams(params, masker) : params);
    return client.query({ name: statementName(text), text, values });
  };
  return {
    dialect: 'postgresql',
    async all<T>(sql: string, params: readonly unknown[] = []) {
      return (await query(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params: readonly unknown[] = []) {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params: readonly unknown[] = []) {
      return (await query(sql, params)).rowCount ?? 0;
    },
    async exec(script: string) {
      await client.query(script);
    },
    async batchAtCommit(statement: string, row: readonly unknown[]) {
      await query(statement, [[row]]);
    },
  };
}

async function openPostgres<M extends ParamMasker>(url: string, masker: M): Promise<Db<M>> {
  // A process frozen inside a transaction (a long pause, SIGSTOP) would hold its row locks
  // until its connection died; the server ends such a transaction after 5 s instead, so
  // other workers can take over what it held (its late writes are then refused by fences).
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, options: '-c idle_in_transaction_session_timeout=5000' });
  // An idle client's error (e.g. the server restarted) must not crash the process.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw postgresOpenError(url, error);
  }
  const sql = postgresSql(pool, masker);
  // Many runs queued in a burst need one wake-up, not one NOTIFY each.
  const pending = new Set<string>();
  let flushing: NodeJS.Timeout | null = null;
  const listeners: pg.Client[] = [];
  return {
    ...sql,
    description: `PostgreSQL database ${redactUrl(url)}`,
    masker,
    unmasked: postgresSql(pool, null),
    durably: (body) => body(sql),
    notify(channel: string) {
      pending.add(channel);
      flushing ??= setTimeout(() => {
        flushing = null;
        const channels = [...pending];
        pending.clear();
        for (const name of channels) pool.query(`SELECT pg_notify($1, '')`, [name]).catch(() => {});
      }, 5);
    },
    async listen(channel: string, onNotify: () => void) {
      let client: pg.Client | null = null;
      let stopped = false;
      const connect = async (): Promise<void> => {
        if (stopped) return;
        const next = new pg.Client({ connectionString: url });
        next.on('notification', (message) => { if (message.channel === channel) onNotify(); });
        // A dropped listener reconnects; the worker's slow poll covers the gap.
        next.on('error', () => { void next.end().catch(() => {}); setTimeout(() => void connect().catch(() => {}), 1000); });
        await next.connect();
        await next.query(`LISTEN "${channel.replace(/"/g, '')}"`);
        client = next;
        listeners.push(next);
      };
      await connect();
      return async () => {
        stopped = true;
        await client?.end().catch(() => {});
      };
    },
    async transaction<T>(body: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await body(postgresSql(client, masker));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      if (flushing) clearTimeout(flushing);
      await Promise.all(listeners.map((client) => client.end().catch(() => {})));
      await pool.end();
    },
  };
}
