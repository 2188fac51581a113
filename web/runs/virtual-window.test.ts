import { describe, expect, it } from 'vitest';
import { scrollToReveal, virtualWindow } from './virtual-window.ts';

describe('virtualWindow', () => {
  it('renders the rows in view and the overscan around them', () => {
    // 10,000 rows of 70 px, a 700 px viewport scrolled to row 100.
    expect(virtualWindow(10_000, 70, 7000, 700, 5)).toEqual({ start: 95, end: 116, totalHeight: 700_000 });
  });

  it('stops at both ends', () => {
    expect(virtualWindow(10_000, 70, 0, 700, 5)).toMatchObject({ start: 0, end: 16 });
    expect(virtualWindow(10_000, 70, 10_000_000, 700, 5)).toMatchObject({ start: 9985, end: 10_000 });
  });

  it('renders everything when the list is shorter than the viewport', () => {
    expect(virtualWindow(3, 70, 0, 700, 5)).toEqual({ start: 0, end: 3, totalHeight: 210 });
    expect(virtualWindow(0, 70, 0, 700, 5)).toEqual({ start: 0, end: 0, totalHeight: 0 });
  });
});

describe('scrollToReveal', () => {
  it('moves only as far as needed', () => {
    expect(scrollToReveal(5, 70, 0, 700)).toBe(0);
    expect(scrollToReveal(20, 70, 0, 700)).toBe(20 * 70 + 70 - 700);
    expect(scrollToReveal(2, 70, 700, 700)).toBe(140);
  });
});
