/**
 * The sandbox's memory of what reached each stand-in receiver: every arrival, when, what
 * it did (created something, replayed an earlier answer, was refused …) and, per key or
 * reference, how many times it arrived and how many times it had an effect. "Effects
 * per reference" is the number that proves (or disproves) exactly-once.
 *
 * Also the settings a person turns on per receiver (latency, failures, dropped answers).
 * Pure and in memory: no I/O, a clock and a random source passed in, gone when the process ends.
 */

export const RECEIVERS = ['payments', 'email', 'crm', 'chat'] as const;
export type ReceiverName = (typeof RECEIVERS)[number];

export function isReceiverName(name: string): name is ReceiverName {
  return (RECEIVERS as readonly string[]).includes(name);
}

/**
 * What became of one arrival:
 * - `created`: the receiver acted (an effect) and answered;
 * - `created_unanswered`: it acted, then dropped the connection without answering;
 * - `replayed`: a repeated key got the first answer again, nothing new happened;
 * - `refused`: turned away without acting (a key reused with other parameters, bad input);
 * - `in_flight`: the same key was still being handled, so this one was turned away;
 * - `failed`: a failure the person asked the sandbox to simulate; nothing happened.
 */
export type ArrivalOutcome = 'created' | 'created_unanswered' | 'replayed' | 'refused' | 'in_flight' | 'failed';

const EFFECTS: readonly ArrivalOutcome[] = ['created', 'created_unanswered'];

export interface Arrival {
  /** What was asked for, e.g. `charge`, `contact`, `message`, `email`. */
  kind: string;
  outcome: ArrivalOutcome;
  /** The idempotency key the sender passed, if any. */
  key?: string | null;
  /** The sender's reference: the body's `ref`, an email's X-Onceflow-Key or Message-ID. */
  reference?: string | null;
  /** The id of what was created, e.g. `ch_…`. */
  objectId?: string | null;
  data?: unknown;
}

export interface LedgerEntry extends Required<Omit<Arrival, 'data'>> {
  seq: number;
  receiver: ReceiverName;
  at: number;
  effect: boolean;
  data: unknown;
}

export interface ReferenceCount {
  /** The key if one was sent, otherwise the reference; `(none)` when neither was. */
  reference: string;
  arrivals: number;
  effects: number;
}

export interface ReceiverSummary {
  receiver: ReceiverName;
  arrivals: number;
  effects: number;
  /** References that had more than one effect: duplicates the receiver let through. */
  duplicated: number;
  references: ReferenceCount[];
}

// Enough for any demonstration; older entries go first, their counts stay.
const MAX_ENTRIES_PER_RECEIVER = 5_000;

interface Book {
  entries: LedgerEntry[];
  counts: Map<string, ReferenceCount>;
  arrivals: number;
  effects: number;
}

function emptyBook(): Book {
  return { entries: [], counts: new Map(), arrivals: 0, effects: 0 };
}

export class Ledger {
  private readonly books = new Map<ReceiverName, Book>(RECEIVERS.map((name) => [name, emptyBook()]));
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  record(receiver: ReceiverName, arrival: Arrival): LedgerEntry {
    const book = this.book(receiver);
    const effect = EFFECTS.includes(arrival.outcome);
    const entry: LedgerEntry = {
      seq: ++this.seq,
      receiver,
      at: this.now(),
      kind: arrival.kind,
      outcome: arrival.outcome,
      key: arrival.key ?? null,
      reference: arrival.reference ?? null,
      objectId: arrival.objectId ?? null,
      effect,
      data: arrival.data ?? null,
    };
    book.entries.push(entry);
    if (book.entries.length > MAX_ENTRIES_PER_RECEIVER) book.entries.shift();
    book.arrivals++;
    if (effect) book.effects++;
    const name = entry.key ?? entry.reference ?? '(none)';
    const count = book.counts.get(name) ?? { reference: name, arrivals: 0, effects: 0 };
    count.arrivals++;
    if (effect) count.effects++;
    book.counts.set(name, count);
    return entry;
  }

  /** Arrivals, oldest first; of one receiver or of all. */
  entries(receiver?: ReceiverName): LedgerEntry[] {
    if (receiver) return [...this.book(receiver).entries];
    return RECEIVERS.flatMap((name) => this.book(name).entries).sort((a, b) => a.seq - b.seq);
  }

  /** The arrivals that had an effect. */
  effects(receiver?: ReceiverName): LedgerEntry[] {
    return this.entries(receiver).filter((entry) => entry.effect);
  }

  /** How many times something with this key or reference took effect. */
  effectsFor(receiver: ReceiverName, reference: string): number {
    return this.book(receiver).counts.get(reference)?.effects ?? 0;
  }

  summary(receiver: ReceiverName): ReceiverSummary {
    const book = this.book(receiver);
    const references = [...book.counts.values()].map((count) => ({ ...count }));
    return {
      receiver,
      arrivals: book.arrivals,
      effects: book.effects,
      duplicated: references.filter((count) => count.effects > 1).length,
      references,
    };
  }

  summaries(): ReceiverSummary[] {
    return RECEIVERS.map((name) => this.summary(name));
  }

  /** Forgets one receiver's arrivals, or everything. */
  reset(receiver?: ReceiverName): void {
    for (const name of receiver ? [receiver] : RECEIVERS) this.books.set(name, emptyBook());
  }

  private book(receiver: ReceiverName): Book {
    const book = this.books.get(receiver);
    if (!book) throw new Error(`The sandbox has no receiver called "${receiver}".`);
    return book;
  }
}

/**
 * What a person can make a receiver do, to watch Onceflow cope:
 * - `latencyMs`: wait this long before answering (default: 0);
 * - `failureRate`: the share of arrivals (0..1) answered with a failure without acting:
 *   500 over HTTP, 451 (try later) over SMTP (default: 0);
 * - `dropAnswer`: act, then cut the connection without answering (default: off).
 */
export interface ReceiverSettings {
  latencyMs: number;
  failureRate: number;
  dropAnswer: boolean;
}

export const DEFAULT_RECEIVER_SETTINGS: ReceiverSettings = { latencyMs: 0, failureRate: 0, dropAnswer: false };

// (at most 60 s) A longer wait would only look like a hang.
export const MAX_LATENCY_MS = 60_000;

export class SandboxSettings {
  private readonly byReceiver = new Map<ReceiverName, ReceiverSettings>(RECEIVERS.map((name) => [name, { ...DEFAULT_RECEIVER_SETTINGS }]));

  constructor(private readonly random: () => number = Math.random) {}

  get(receiver: ReceiverName): ReceiverSettings {
    return { ...(this.byReceiver.get(receiver) ?? DEFAULT_RECEIVER_SETTINGS) };
  }

  all(): Record<ReceiverName, ReceiverSettings> {
    return Object.fromEntries(RECEIVERS.map((name) => [name, this.get(name)])) as Record<ReceiverName, ReceiverSettings>;
  }

  /** Changes some settings of one receiver; values out of range are brought into it. */
  configure(receiver: ReceiverName, patch: Partial<ReceiverSettings>): ReceiverSettings {
    const current = this.get(receiver);
    const next: ReceiverSettings = {
      latencyMs: patch.latencyMs === undefined ? current.latencyMs : Math.round(Math.min(Math.max(patch.latencyMs, 0), MAX_LATENCY_MS)),
      failureRate: patch.failureRate === undefined ? current.failureRate : Math.min(Math.max(patch.failureRate, 0), 1),
      dropAnswer: patch.dropAnswer ?? current.dropAnswer,
    };
    this.byReceiver.set(receiver, next);
    return { ...next };
  }

  /** Back to answering at once, always, every time. */
  reset(receiver?: ReceiverName): void {
    for (const name of receiver ? [receiver] : RECEIVERS) this.byReceiver.set(name, { ...DEFAULT_RECEIVER_SETTINGS });
  }

  /** Whether this arrival should be answered with a simulated failure. */
  rollFailure(receiver: ReceiverName): boolean {
    const rate = this.get(receiver).failureRate;
    return rate > 0 && this.random() < rate;
  }
}
