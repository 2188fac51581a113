/**
 * The rows of a fixed-row-height list worth rendering: those in view plus `overscan`
 * on each side. Only these exist in the page, so a 10,000-event timeline costs what a
 * 40-event one does.
 */
export interface VirtualWindow {
  /** First rendered row (inclusive). */
  start: number;
  /** Last rendered row (exclusive). */
  end: number;
  /** Height of all rows together, which gives the scrollbar its true length. */
  totalHeight: number;
}

export function virtualWindow(count: number, rowHeight: number, scrollTop: number, viewportHeight: number, overscan: number): VirtualWindow {
  const totalHeight = count * rowHeight;
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0, totalHeight };
  const top = Math.min(Math.max(scrollTop, 0), Math.max(totalHeight - viewportHeight, 0));
  const firstVisible = Math.floor(top / rowHeight);
  const visible = Math.ceil(Math.max(viewportHeight, rowHeight) / rowHeight) + 1;
  return {
    start: Math.max(0, firstVisible - overscan),
    end: Math.min(count, firstVisible + visible + overscan),
    totalHeight,
  };
}

/** The scroll position that brings a row into view, moving as little as possible. */
export function scrollToReveal(index: number, rowHeight: number, scrollTop: number, viewportHeight: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return bottom - viewportHeight;
  return scrollTop;
}
