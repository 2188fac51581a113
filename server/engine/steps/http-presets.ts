/**
 * Receivers known to honour an idempotency key sent in a header. Choosing one in the
 * editor fills `receiverKeyHeader`, which tells the engine a repeat with the same key
 * cannot apply twice, so an unknown outcome may be retried instead of asking a person.
 *
 * Only header-based keys belong here: receivers that take the key in the body (Square's
 * `idempotency_key`) are served by putting `{{ … }}` in the body instead.
 */

export interface ReceiverKeyPreset {
  id: string;
  name: string;
  /** The header that carries the step's key. */
  header: string;
  /** One sentence for the editor, written for someone who is not a programmer. */
  description: string;
}

export const RECEIVER_KEY_PRESETS: readonly ReceiverKeyPreset[] = [
  {
    id: 'stripe',
    name: 'Stripe',
    header: 'Idempotency-Key',
    description: 'Stripe remembers each key for at least 24 hours and answers a repeat with the first answer instead of charging again.',
  },
  {
    id: 'paypal',
    name: 'PayPal',
    header: 'PayPal-Request-Id',
    description: 'PayPal treats calls with the same request id as one call and returns the result of the first.',
  },
  {
    id: 'adyen',
    name: 'Adyen',
    header: 'Idempotency-Key',
    description: 'Adyen keeps each key for at least 7 days and does not repeat a payment sent again with the same key.',
  },
  {
    id: 'checkout-com',
    name: 'Checkout.com',
    header: 'Cko-Idempotency-Key',
    description: 'Checkout.com answers a payment request sent again with the same key without taking the payment twice.',
  },
  {
    id: 'gocardless',
    name: 'GoCardless',
    header: 'Idempotency-Key',
    description: 'GoCardless refuses to create a second payment or mandate for a key it has already seen.',
  },
  {
    id: 'mollie',
    name: 'Mollie',
    header: 'Idempotency-Key',
    description: 'Mollie returns the original answer when a request with the same key arrives again.',
  },
  {
    id: 'onceflow-sandbox',
    name: 'Onceflow sandbox payments',
    header: 'Idempotency-Key',
    description: 'The built-in test payments receiver behaves like Stripe, so you can try retries and crashes without real money.',
  },
];

/** The presets that use this header (case-insensitive), e.g. to show which services it suits. */
export function presetsForHeader(header: string): ReceiverKeyPreset[] {
  const wanted = header.trim().toLowerCase();
  return RECEIVER_KEY_PRESETS.filter((preset) => preset.header.toLowerCase() === wanted);
}
