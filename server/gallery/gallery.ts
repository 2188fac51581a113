/**
 * The template gallery: ready-made flows in `gallery/*.json` at the repository root.
 * A template is an ordinary flow document whose strings may contain `${ONCEFLOW_URL}`,
 * replaced by the server's own address when a copy is made, so templates can call the
 * built-in sandbox receivers under `/sandbox/...`.
 *
 * Files are shown in the order of their names; a leading number (`01-`) sets that order
 * and is not part of the template's id. Loading reads the folder once; everything else
 * is pure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError, UnexpectedError } from '../engine/errors.ts';
import { isSideEffectStep, type FlowDocument } from '../engine/flow/document.ts';
import { validateFlow } from '../engine/flow/validate.ts';

export const BASE_URL_PLACEHOLDER = '${ONCEFLOW_URL}';

export interface GalleryTemplate {
  /** The file name without its order number and `.json`, e.g. `order-paid-invoice-receipt`. */
  id: string;
  document: FlowDocument;
}

export interface TemplateSummary {
  id: string;
  name: string;
  description: string;
  /** The kinds of its steps, in order of first appearance, e.g. `['trigger.webhook', 'http.request']`. */
  kinds: string[];
  /** How many of its steps change something outside Onceflow. */
  sideEffects: number;
}

const DEFAULT_DIR = fileURLToPath(new URL('../../gallery/', import.meta.url));

/** Reads every template of a folder, sorted by id. A template that is not a valid flow is a bug. */
export function loadTemplates(dir: string = DEFAULT_DIR): GalleryTemplate[] {
  const files = readdirSync(dir).filter((file) => file.endsWith('.json')).sort();
  return files.map((file) => {
    const id = basename(file, '.json').replace(/^\d+-/, '');
    const raw: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    // Checked with a stand-in address, since validation does not care which one it is.
    const result = validateFlow(withBaseUrl(raw, 'http://127.0.0.1:3000'));
    if (!result.ok) {
      const errors = result.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.message);
      throw new UnexpectedError(`The gallery template ${file} is not a valid flow: ${errors.join(' ')}`);
    }
    return { id, document: raw as FlowDocument };
  });
}

export function summarize(template: GalleryTemplate): TemplateSummary {
  const { document } = template;
  return {
    id: template.id,
    name: document.name,
    description: document.description ?? '',
    kinds: [...new Set(document.nodes.map((node) => node.type))],
    sideEffects: document.nodes.filter((node) => isSideEffectStep(node)).length,
  };
}

/** The sandbox's SMTP port, so templates can send mail to it wherever it listens. */
export const SMTP_PORT_PLACEHOLDER = '${ONCEFLOW_SMTP_PORT}';

/** Replaces `${ONCEFLOW_URL}` (and `${ONCEFLOW_SMTP_PORT}`) in every string of a value (object keys included). */
export function withBaseUrl<T>(value: T, baseUrl: string, smtpPort = 2525): T {
  const base = baseUrl.replace(/\/+$/, '');
  const walk = (item: unknown): unknown => {
    if (item === SMTP_PORT_PLACEHOLDER) return smtpPort;
    if (typeof item === 'string') return item.split(BASE_URL_PLACEHOLDER).join(base).split(SMTP_PORT_PLACEHOLDER).join(String(smtpPort));
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [walk(key) as string, walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}

export function createGallery(templates: readonly GalleryTemplate[]) {
  const byId = new Map(templates.map((template) => [template.id, template]));
  return {
    list: (): TemplateSummary[] => templates.map(summarize),
    /** A fresh copy of the template's document, pointing at this server. */
    useTemplate(id: string, baseUrl: string, smtpPort?: number): FlowDocument {
      const template = byId.get(id);
      if (!template) throw new NotFoundError(`There is no template "${id}" in the gallery.`);
      return withBaseUrl(template.document, baseUrl, smtpPort);
    },
  };
}

export type Gallery = ReturnType<typeof createGallery>;

let shared: Gallery | null = null;

/** The repository's gallery, read on first use. */
export function defaultGallery(): Gallery {
  shared ??= createGallery(loadTemplates());
  return shared;
}

/** `list()` and `useTemplate(id, baseUrl)` of the repository's gallery. */
export const listTemplates = (): TemplateSummary[] => defaultGallery().list();
export const useTemplate = (id: string, baseUrl: string, smtpPort?: number): FlowDocument => defaultGallery().useTemplate(id, baseUrl, smtpPort);
