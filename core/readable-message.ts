/**
 * A receiver's message without the raw JSON it often carries: `… (500): {"error":{"message":"No"}}`
 * becomes `… (500): No`. Anything that does not parse is kept as it is. The web app's run
 * pages and the command line both say a failure this way, so they read the same.
 */
export function readableMessage(message: string): string {
  const match = /^([\s\S]*?):\s*(\{[\s\S]*\})\s*$/.exec(message);
  if (!match) return message;
  try {
    const parsed = JSON.parse(match[2]!) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message);
    return typeof inner === 'string' && inner ? `${match[1]}: ${inner}` : message;
  } catch {
    return message;
  }
}
