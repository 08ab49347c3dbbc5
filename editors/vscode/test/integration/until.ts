// One bounded wait for the integration suites: the extension host answers asynchronously (the
// server's replies, the active editor's change), so a test polls for the state it expects and,
// on a loaded machine, fails after WAIT_MS saying what it saw last.

export const WAIT_MS = 45_000;

/** Resolves once `check` holds; fails after WAIT_MS saying what was last seen. */
export async function until(what: string, check: () => boolean | Promise<boolean>, seen: () => unknown): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; last seen: ${JSON.stringify(seen())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
