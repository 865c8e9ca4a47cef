/** The benchmark cases; each domain adds its own (one import and one line). */
export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<void>;
}

export const cases: BenchCase[] = [];
