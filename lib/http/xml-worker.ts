/**
 * Parses large XML bodies in a worker thread: fast-xml-parser is synchronous and takes about a
 * second per 5 MB on this kind of machine, which would hold every other request and /health/live.
 * The worker runs plain JavaScript (eval), so it works alike under tsx and compiled.
 */
import { Worker } from 'node:worker_threads';

type Reply = { id: number; value?: unknown; json?: string; error?: string };

/** One worker per parser options (the request codec's, and its validator's). */
const workers = new Map<string, Worker>();
let nextId = 0;
const waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();

function start(key: string, options: object): Worker {
  // mode validate: the validation pass alone, failing with the message parse(text, true) gives.
  // A parse answers JSON text: the structured clone of a 3 MB statement's tree (a hundred
  // thousand small objects) took about 55 ms, JSON.stringify here and JSON.parse there about 30.
  const source = `
    const { parentPort } = require('node:worker_threads');
    const { XMLParser, XMLValidator } = require(${JSON.stringify(require.resolve('fast-xml-parser'))});
    const parser = new XMLParser(${JSON.stringify(options)});
    parentPort.on('message', ({ id, text, mode }) => {
      try {
        if (mode === 'validate') {
          const result = XMLValidator.validate(text);
          if (result !== true) throw new Error(result.err.msg + ':' + result.err.line + ':' + result.err.col);
          parentPort.postMessage({ id, value: true });
        } else {
          const parsed = parser.parse(text);
          parentPort.postMessage({ id, json: JSON.stringify(parsed) });
        }
      } catch (err) { parentPort.postMessage({ id, error: String(err && err.message) }); }
    });`;
  const created = new Worker(source, { eval: true });
  created.unref();
  created.on('message', ({ id, value, json, error }: Reply) => {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (error !== undefined) entry?.reject(new Error(error));
    else entry?.resolve(json === undefined ? value : JSON.parse(json));
  });
  // A crashed worker (out of memory on a hostile body) fails the requests in it; the next starts a new one.
  created.on('error', (err) => {
    workers.delete(key);
    for (const entry of waiting.values()) entry.reject(err);
    waiting.clear();
  });
  return created;
}

/** One request to the worker of these options. */
function ask(options: object, message: { text: string; mode: 'parse' | 'validate' }): Promise<unknown> {
  const key = JSON.stringify(options);
  const worker = workers.get(key) ?? start(key, options);
  workers.set(key, worker);
  const id = nextId++;
  const promise = new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.ref();
  worker.postMessage({ id, ...message });
  return promise.finally(() => {
    if (waiting.size === 0) for (const w of workers.values()) w.unref();
  });
}

/** The validator's worker: options of its own, so it runs beside the parser's. */
const validatorOptions = { validator: true };

/**
 * Parses text with a parser of these options (plain data only) off the event loop, validated as
 * parse(text, true) would. The validation pass (a fifth of the time of a large body) and the parse read the
 * same text independently, so they run in two workers at once: on two cores a large body costs
 * the longer of the two, not their sum. A body the validator refuses fails with its message,
 * whatever the lenient parse made of it.
 */
export async function parseInWorker(text: string, options: object): Promise<unknown> {
  const [valid, parsed] = await Promise.allSettled([ask(validatorOptions, { text, mode: 'validate' }), ask(options, { text, mode: 'parse' })]);
  if (valid.status === 'rejected') throw valid.reason;
  if (parsed.status === 'rejected') throw parsed.reason;
  return parsed.value;
}
