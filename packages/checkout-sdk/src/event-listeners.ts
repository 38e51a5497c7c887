// The listeners of one handle (an operation, a room), one set per event name. A listener that throws is a page's
// bug: reported as an uncaught error, as an event handler's is, and the handle goes on.

export interface Listeners {
  emit(event: string, value: unknown): void;
  /** Returns a function that removes the listener. */
  on(event: string, listener: (value: never) => void): () => void;
}

export function createListeners(): Listeners {
  const sets: Record<string, Set<(value: unknown) => void>> = {};
  return {
    emit(event, value) {
      for (const listener of sets[event] ?? []) {
        try {
          listener(value);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    on(event, listener) {
      sets[event] ??= new Set();
      const set = sets[event];
      set.add(listener as (value: unknown) => void);
      return () => set.delete(listener as (value: unknown) => void);
    },
  };
}
