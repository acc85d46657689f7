/**
 * A schema built on first use (docs/decisions.md "Core's schemas built on first use") is built once, when touched,
 * and behaves as the schema it stands for: the same answers and issues, the same methods, as a field of another
 * schema, in `instanceof` and in its inferred type.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { bookDetailSchema, contentMetadataSchema, lazySchema, topicListSchema } from '../src/index.ts';

const build = () => z.object({ name: z.string().min(2, 'Too short.'), pages: z.number().int().optional() });

describe('lazySchema', () => {
  it('builds nothing until touched, then once', () => {
    let builds = 0;
    const lazy = lazySchema(() => {
      builds++;
      return build();
    });
    const holder = lazySchema(() => z.object({ inner: lazy }));
    expect(builds).toBe(0);
    expect(holder.safeParse({ inner: { name: 'ab' } }).success).toBe(true);
    expect(builds).toBe(1);
    lazy.parse({ name: 'abc' });
    lazy.extend({ more: z.boolean() });
    expect(builds).toBe(1);
  });

  it('answers as the schema it stands for', () => {
    const eager = build();
    const lazy = lazySchema(build);
    for (const input of [{ name: 'Moby' }, { name: 'M', pages: 1.5 }, { name: 3 }, null, 'x']) {
      const a = eager.safeParse(input);
      const b = lazy.safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.data).toEqual(a.data);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
    expect(() => lazy.parse({ name: 'M' })).toThrow(z.ZodError);
    expect(lazy).toBeInstanceOf(z.ZodObject);
    expect(lazy).toBeInstanceOf(z.ZodType);
    expect(Object.keys(lazy.shape)).toEqual(['name', 'pages']);
    expect('shape' in lazy).toBe(true);
    expect(lazy.shape.name.parse('ab')).toBe('ab');
    expect(lazy.optional().parse(undefined)).toBeUndefined();
    expect(lazy.partial().parse({})).toEqual({});
    expect(lazy.pick({ name: true }).parse({ name: 'ab', pages: 3 })).toEqual({ name: 'ab' });
    expect(lazy.extend({ pages: z.string() }).parse({ name: 'ab', pages: 'ten' })).toEqual({ name: 'ab', pages: 'ten' });
    expect(z.array(lazy).safeParse([{ name: 'ab' }, { name: 'a' }]).error?.issues[0]?.path).toEqual([1, 'name']);
    expectTypeOf<z.infer<typeof lazy>>().toEqualTypeOf<z.infer<typeof eager>>();
    expectTypeOf(lazy).toEqualTypeOf(eager);
  });

  it("core's schemas extend and compose as before", () => {
    const meta = {
      api_url: '/api/v1/book/1/', authors: ['Herman Melville'], content_format: 'book', continue_url: '/c', cover_image_url: null,
      identifier: '1', issued: null, publishers: [], title: 'Moby-Dick', topics: [{ name: 'Sea', slug: 'sea' }], url: '/u',
      book_id: '1', title_safe: 'moby-dick', description: null,
    };
    expect(contentMetadataSchema.parse(meta)).toEqual(meta);
    // bookDetailSchema extends contentMetadataSchema: its fields and the extension's are both checked
    expect(bookDetailSchema.safeParse(meta).error?.issues.map((i) => i.path[0])).toContain('chapters');
    expect(Object.keys(bookDetailSchema.shape)).toEqual(expect.arrayContaining(Object.keys(contentMetadataSchema.shape)));
    expect(topicListSchema.parse({ results: [{ name: 'Sea', slug: 'sea', count: 2 }] }).results[0]?.count).toBe(2);
    expect(topicListSchema.safeParse({ results: [{ name: 'Sea', slug: 'sea' }] }).error?.issues[0]?.path).toEqual(['results', 0, 'count']);
  });
});
