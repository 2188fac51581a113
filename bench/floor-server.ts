/**
 * The floor for the webhook benchmark: a bare node:http server that does one plain
 * insert-on-conflict per request with the same driver and answers 202 or 200. No
 * framework, no validation, no run: what the machine and driver can do at best.
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';

const url = process.env.DATABASE_URL!;
const port = Number(process.env.PORT);
const SQL = `INSERT INTO inbound_events (id, hook_id, event_id, run_id, duplicates, received_at, last_seen_at, expires_at)
  VALUES (?, 'floor', ?, 'r', 0, ?, ?, ?) ON CONFLICT (hook_id, event_id) DO NOTHING`;
let counter = 0;

let insert: (eventId: string) => Promise<boolean>;
if (url.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  let index = 0;
  const text = SQL.replace(/\?/g, () => `$${++index}`);
  insert = async (eventId) => {
    const now = Date.now();
    const result = await pool.query({ name: 'floor-insert', text, values: [`f${++counter}`, eventId, now, now, now] });
    return (result.rowCount ?? 0) > 0;
  };
} else {
  const db = new Database(url.replace(/^file:/, ''));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const statement = db.prepare(SQL);
  insert = async (eventId) => {
    const now = Date.now();
    return statement.run(`f${++counter}`, eventId, now, now, now).changes > 0;
  };
}

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
    const created = await insert(body.id);
    response.writeHead(created ? 202 : 200, { 'content-type': 'application/json' }).end(created ? '{"runId":"r"}' : '{"duplicate":true}');
  });
}).listen(port, '127.0.0.1', () => console.log('ready'));
