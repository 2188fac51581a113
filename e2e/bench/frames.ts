/** Records the time between animation frames in the page while something happens. */
import type { Page } from '@playwright/test';

type Recorder = { frames: number[]; recording: boolean };

export async function startFrameRecording(page: Page): Promise<void> {
  await page.evaluate(() => {
    const state = window as unknown as Recorder;
    state.frames = [];
    state.recording = true;
    let last = performance.now();
    const tick = (now: number) => {
      state.frames.push(now - last);
      last = now;
      if (state.recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Stops recording; the first interval (from the start call to a frame) is left out. */
export async function stopFrameRecording(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const state = window as unknown as Recorder;
    state.recording = false;
    return state.frames.slice(1);
  });
}
