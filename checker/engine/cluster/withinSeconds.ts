/**
 * A bound on how long a worker waits for something that may never end, such as loading a spec whose
 * module never finishes: the worker gives its part back and is free for the next run.
 */

/** `work`, or an error saying `late` once `seconds` have passed (the work itself goes on, unheard). */
export function withinSeconds<T>(work: Promise<T>, seconds: number, late: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(late)), seconds * 1000);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
