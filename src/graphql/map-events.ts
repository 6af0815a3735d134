/** An async generator over `source` mapped by `map`; return() and throw() reach the source at once. */
export function mapEvents<T, R>(source: AsyncIterable<T>, map: (value: T) => R | Promise<R>): AsyncGenerator<R> {
  const iterator = source[Symbol.asyncIterator]();
  const close = async (): Promise<IteratorResult<R>> => {
    await iterator.return?.();
    return { value: undefined, done: true };
  };
  const mapped: AsyncGenerator<R> = {
    async next() {
      const result = await iterator.next();
      if (result.done) return { value: undefined, done: true };
      try {
        return { value: await map(result.value), done: false };
      } catch (error) {
        await iterator.return?.().catch(() => undefined);
        throw error;
      }
    },
    return: close,
    async throw(error: unknown) {
      if (iterator.throw) {
        const result = await iterator.throw(error);
        return result.done ? { value: undefined, done: true } : { value: await map(result.value), done: false };
      }
      await close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  } as AsyncGenerator<R>;
  return mapped;
}
