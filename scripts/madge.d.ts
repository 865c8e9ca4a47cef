/** The part of madge's programmatic API that scripts/check-cycles.ts uses (madge ships no types). */
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
  }
  interface MadgeResult {
    /** Each file (relative to baseDir) with the files it imports. */
    obj(): Record<string, string[]>;
    /** Each file cycle as the files that form it. */
    circular(): string[][];
    /** Imports madge could not resolve to a file (npm packages are not listed). */
    warnings(): { skipped: string[] };
  }
  function madge(paths: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
  export = madge;
}
