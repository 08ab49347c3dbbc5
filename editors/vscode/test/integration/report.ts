// What the integration tests saw, written as JSON by index.ts (the closing note quotes it).
export interface SeenDiagnostic {
  code: string | number | undefined;
  source: string | undefined;
  range: [number, number, number, number]; // start line, start character, end line, end character (UTF-16)
  message: string;
}

export const report = {
  tests: [] as { title: string; state: string; error?: string; reason?: string }[],
  skipReasons: {} as Record<string, string>,
  seen: {} as Record<string, SeenDiagnostic[]>,
  server: {} as Record<string, unknown>,
};
