// Line icons for the step kinds, drawn inline so the app needs no icon package.
const PATHS: Record<string, string[]> = {
  'trigger.webhook': ['M13 2 4 14h8l-1 8 9-12h-8l1-8z'],
  'trigger.manual': ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M10 8.5v7l6-3.5-6-3.5z'],
  'trigger.schedule': ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M12 7v5l3 2'],
  'http.request': [
    'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z',
    'M3 12h18',
    'M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3z',
  ],
  'email.send': ['M3 6.5A1.5 1.5 0 0 1 4.5 5h15A1.5 1.5 0 0 1 21 6.5v11a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z', 'm3.5 6 8.5 7 8.5-7'],
  'message.post': ['M20 15.5a1.5 1.5 0 0 1-1.5 1.5H8l-4 4V5.5A1.5 1.5 0 0 1 5.5 4h13A1.5 1.5 0 0 1 20 5.5z', 'M8 9h8', 'M8 12.5h5'],
  transform: ['M4 8h13', 'm14 4.5 3.5 3.5-3.5 3.5', 'M20 16H7', 'm10 12.5-3.5 3.5 3.5 3.5'],
  condition: ['M12 3 21 12 12 21 3 12z', 'M12 8.5v4', 'M12 15.5v.01'],
  delay: ['M7 3h10', 'M7 21h10', 'M8 3v3.5l4 4.5 4-4.5V3', 'M8 21v-3.5l4-4.5 4 4.5V21'],
  'state.transition': ['M5 12h14', 'M5 14.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M12 14.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M19 14.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z'],
  'for.each': ['M17 2.5 20.5 6 17 9.5', 'M3.5 11V9a3 3 0 0 1 3-3h14', 'M7 21.5 3.5 18 7 14.5', 'M20.5 13v2a3 3 0 0 1-3 3h-14'],
  'flow.run': ['M4 5.5A1.5 1.5 0 0 1 5.5 4h13A1.5 1.5 0 0 1 20 5.5v13a1.5 1.5 0 0 1-1.5 1.5h-13A1.5 1.5 0 0 1 4 18.5z', 'M10 9v6l5-3-5-3z'],
  sideEffect: ['M13 2 4 14h8l-1 8 9-12h-8l1-8z'],
  problem: ['M12 9v4', 'M12 16.5v.01', 'M10.3 3.9 2.4 17.5A2 2 0 0 0 4.1 20.5h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z'],
  undo: ['M9 14 4 9l5-5', 'M4 9h10.5a5.5 5.5 0 0 1 0 11H11'],
  redo: ['m15 14 5-5-5-5', 'M20 9H9.5a5.5 5.5 0 0 0 0 11H13'],
};

export function KindIcon({ kind, size = 18 }: { kind: string; size?: number }) {
  const paths = PATHS[kind] ?? PATHS['transform']!;
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
