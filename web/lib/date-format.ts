/**
 * A date formatter made on first use. The first Intl.DateTimeFormat of a page loads the
 * locale's data, which took tens of milliseconds at start-up when formatters were made
 * as modules loaded, before anything was shown.
 */
export function dateFormat(options: Intl.DateTimeFormatOptions): (at: number | Date) => string {
  let format: Intl.DateTimeFormat | undefined;
  return (at) => (format ??= new Intl.DateTimeFormat(undefined, options)).format(at);
}
