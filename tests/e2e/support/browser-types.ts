/**
 * The little of the browser's API the specs use inside page.evaluate / addInitScript. The
 * server tsconfig (which type-checks tests/) has no DOM lib, and adding it would make browser
 * globals look valid in server code, so functions that run in the page cast `globalThis` to
 * this instead.
 */
export type BrowserWindow = {
  scrollY: number;
  innerHeight: number;
  scrollTo(options: { top: number; behavior?: 'instant' | 'smooth' | 'auto' }): void;
  requestAnimationFrame(callback: () => void): number;
  getComputedStyle(element: unknown): { backgroundColor: string };
  document: {
    documentElement: { scrollHeight: number };
    getElementById(id: string): { getBoundingClientRect(): { top: number } } | null;
    getAnimations(): Array<{ playState: string }>;
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { violatedDirective: string; blockedURI: string; sourceFile: string; lineNumber: number }) => void,
      capture?: boolean,
    ): void;
  };
};
