// Line icons for timeline events, drawn inline like the step icons, so no icon package is needed.
import type { IconName } from './timeline-sentences.ts';

const PATHS: Record<IconName, string[]> = {
  check: ['M20 6 9 17l-5-5'],
  shield: ['M12 3 4.5 6v5.5c0 4.6 3.2 8.3 7.5 9.5 4.3-1.2 7.5-4.9 7.5-9.5V6L12 3z', 'm9 12 2 2 4-4'],
  skip: ['M5 5.5v13l9-6.5-9-6.5z', 'M19 5v14'],
  question: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M9.4 9.2a2.7 2.7 0 0 1 5.2 1c0 1.8-2.6 2.4-2.6 4', 'M12 17.2v.01'],
  cross: ['M18 6 6 18', 'M6 6l12 12'],
  clock: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M12 7v5l3 2'],
  play: ['M7 4.5v15l12-7.5-12-7.5z'],
  repeat: ['M17 2.5 20.5 6 17 9.5', 'M3.5 11.5V10a4 4 0 0 1 4-4h13', 'M7 21.5 3.5 18 7 14.5', 'M20.5 12.5V14a4 4 0 0 1-4 4h-13'],
  retry: ['M3.5 12a8.5 8.5 0 1 0 2.6-6.1', 'M3.5 4v5h5'],
  inbox: ['M21.5 12.5h-6l-2 3h-3l-2-3h-6', 'M5.9 5.6 2.5 12.5v5a2 2 0 0 0 2 2h15a2 2 0 0 0 2-2v-5l-3.4-6.9A2 2 0 0 0 16.3 4.5H7.7a2 2 0 0 0-1.8 1.1z'],
  copy: ['M9 9h10.5v10.5H9z', 'M5 15H4.5v-10.5H15V5'],
  alert: ['M12 9v4', 'M12 16.5v.01', 'M10.3 3.9 2.4 17.5A2 2 0 0 0 4.1 20.5h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z'],
  flag: ['M5 21V4', 'M5 4h12l-2.5 4L17 12H5'],
  recover: ['M20.5 12a8.5 8.5 0 1 1-2.6-6.1', 'M20.5 4v5h-5', 'm8.5 12.5 2.5 2.5 4.5-5'],
  queue: ['M4 6h16', 'M4 12h16', 'M4 18h10'],
  stop: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M9 9h6v6H9z'],
};

export function TimelineIcon({ name, size = 15 }: { name: IconName; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {PATHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
