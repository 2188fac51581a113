import { describe, expect, it } from 'vitest';
import { addedStepBox, drawableNode, openingViewport, panToReveal, READABLE_ZOOM, STEP_MIN_HEIGHT, STEP_WIDTH } from './canvas-view.ts';
import type { StepNode } from './editor-changes.ts';
import { LOOP_MIN_SIZE } from './loop-layout.ts';

const step = (id: string, type: string, x: number, y: number, extra: Partial<StepNode> = {}): StepNode => ({ id, type, position: { x, y }, data: {}, ...extra });
const canvas = { width: 1000, height: 800 };

describe('how a flow opens', () => {
  it('fits a flow that stays readable when fitted', () => {
    const nodes = [step('a', 'trigger.webhook', 0, 0), step('b', 'http.request', 320, 0), step('c', 'email.send', 640, 160)];
    expect(openingViewport(nodes, canvas)).toBeNull();
  });

  it('opens a wide flow at full size with its trigger near the left edge', () => {
    const nodes = Array.from({ length: 40 }, (_, i) => step(`s${i}`, i === 4 ? 'trigger.manual' : 'transform', i * 320, i % 2 === 0 ? 0 : 400));
    const view = openingViewport(nodes, canvas)!;
    expect(view.zoom).toBe(1);
    expect(view.x).toBe(80 - 4 * 320);
    // Nothing lies above the trigger, so the flow's top edge sits near the top.
    expect(view.y).toBe(80);
  });

  it('centres the first step vertically when the flow reaches above it', () => {
    const nodes = Array.from({ length: 40 }, (_, i) => step(`s${i}`, 'transform', i * 320, i === 0 ? 1000 : (i % 5) * 500));
    const view = openingViewport(nodes, canvas)!;
    expect(view.x).toBe(80);
    expect(view.y).toBe(400 - (1000 + STEP_MIN_HEIGHT / 2));
  });

  it('uses measured sizes where it has them', () => {
    const tall = Array.from({ length: 3 }, (_, i) => step(`s${i}`, 'transform', 0, i * 100, { measured: { width: STEP_WIDTH, height: 5000 } }));
    expect(openingViewport(tall, canvas)).not.toBeNull();
  });
});

describe('steps not yet drawn', () => {
  it('get an expected size and handles, the same object while the step is unchanged', () => {
    const node = step('c', 'condition', 0, 0);
    const drawable = drawableNode(node);
    expect(drawable.measured).toEqual({ width: STEP_WIDTH, height: STEP_MIN_HEIGHT });
    expect(drawable.handles?.map((handle) => `${handle.type}:${handle.id ?? ''}`)).toEqual(['target:', 'source:true', 'source:false']);
    expect(drawableNode(node)).toBe(drawable);
  });

  it('triggers have no way in', () => {
    expect(drawableNode(step('t', 'trigger.webhook', 0, 0)).handles?.map((handle) => handle.type)).toEqual(['source']);
  });

  it('are passed through untouched once measured', () => {
    const measured = step('m', 'delay', 0, 0, { measured: { width: 240, height: 96 } });
    expect(drawableNode(measured)).toBe(measured);
  });
});

describe('bringing a new step into view', () => {
  const view = { x: 100, y: 50, zoom: 1 };
  const box = (x: number, y: number) => ({ x, y, width: STEP_WIDTH, height: STEP_MIN_HEIGHT });

  it('leaves the view alone when the step is in view', () => {
    expect(panToReveal(view, canvas, box(0, 0))).toBeNull();
    expect(panToReveal(view, canvas, box(600, 600))).toBeNull();
  });

  it('pans only as far as needed, not to centre the step', () => {
    // Screen right edge at 100 + 800 + 240 = 1140; it must end 24 px inside the 1000 px canvas.
    expect(panToReveal(view, canvas, box(800, 0))).toEqual({ x: 100 - (1140 - 976), y: 50, zoom: 1 });
    expect(panToReveal(view, canvas, box(0, 800))).toEqual({ x: 100, y: 50 - (50 + 800 + STEP_MIN_HEIGHT - 776), zoom: 1 });
    expect(panToReveal(view, canvas, box(-200, 0))).toEqual({ x: 100 + (24 - (100 - 200)), y: 50, zoom: 1 });
  });

  it('zooms out, around the middle of the canvas, for a box wider than the canvas at this zoom', () => {
    const loop = { x: 300, y: 100, width: 600, height: 260 };
    const atLarge = { x: 0, y: 0, zoom: 1.1 };
    // 660 px on screen does not fit 648 - 48: at 1.0 it is 600, ending 24 px inside the right edge.
    const next = panToReveal(atLarge, { width: 648, height: 660 }, loop)!;
    expect(next.zoom).toBeCloseTo(1, 10);
    expect(next.x + (loop.x + loop.width) * next.zoom).toBeCloseTo(648 - 24, 6);
    expect(next.x + loop.x * next.zoom).toBeCloseTo(24, 6);
    // Never smaller than labels can be read: then its start is what counts.
    const tiny = panToReveal({ x: 0, y: 0, zoom: 1 }, { width: 200, height: 600 }, loop)!;
    expect(tiny.zoom).toBe(READABLE_ZOOM);
    expect(tiny.x + loop.x * tiny.zoom).toBeCloseTo(24, 6);
  });

  it('counts the zoom', () => {
    const zoomed = { x: 0, y: 0, zoom: 2 };
    // At twice the size the step spans 800–1280 on screen.
    expect(panToReveal(zoomed, canvas, box(400, 100))).toEqual({ x: 976 - 1280, y: 0, zoom: 2 });
  });
});

describe('what a new step brings into view', () => {
  it('is the step itself, at its drawn size', () => {
    expect(addedStepBox([step('a', 'transform', 40, 60)], 'a')).toEqual({ x: 40, y: 60, width: STEP_WIDTH, height: STEP_MIN_HEIGHT });
    // A new For each is its whole box, not a step's width of it.
    expect(addedStepBox([step('loop', 'for.each', 300, 0)], 'loop')).toEqual({ x: 300, y: 0, ...LOOP_MIN_SIZE });
    expect(addedStepBox([step('a', 'transform', 40, 60)], 'gone')).toBeNull();
  });

  it('is, for a step inside a loop, the step and the loop\'s header above it to the loop\'s right end', () => {
    // The loop grows to the step's right end plus its room (48): 700 + 240 + 48 = 988 wide.
    const nodes = [step('loop', 'for.each', 300, 0), step('inner', 'transform', 700, 112, { parentId: 'loop' })];
    expect(addedStepBox(nodes, 'inner')).toEqual({ x: 1000, y: 0, width: 1288 - 1000, height: 112 + STEP_MIN_HEIGHT });
  });
});
