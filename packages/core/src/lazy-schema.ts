/**
 * A schema built the first time something touches it. Building every schema of every call when the module is
 * evaluated was one long task of the reader's start, paid before its first answer could be parsed, for a few
 * schemas used (docs/decisions.md "Core's schemas built on first use"). The value stands for the schema in every
 * way (`.parse`, `.shape`, `.extend`, a field of another schema, `instanceof`, `z.infer`): each touch is passed
 * to the schema, made once.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let schema: T | undefined;
  const real = (): T => (schema ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    // The stand-in has none of the schema's own properties, so none may be reported as fixed (the Proxy rules).
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      return d && { ...d, configurable: true };
    },
    defineProperty: (_, key, d) => Reflect.defineProperty(real(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
