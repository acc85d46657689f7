import { describe, expect, it } from 'vitest';
import { buyLinkOf, isbnOf, maskEmail } from '../src/marketing.ts';

describe('buy links', () => {
  const title = { identifier: 'urn:isbn:978-0-14-143951-8', title: 'Pride & Prejudice', authors: ['Jane Austen'], book_id: 'b/1' };
  it('reads ISBN-10 and ISBN-13 out of identifiers, and nothing else', () => {
    expect(isbnOf('urn:isbn:978-0-14-143951-8')).toBe('9780141439518');
    expect(isbnOf('ISBN 0-14-143951-x')).toBe('014143951X');
    expect(isbnOf('urn:uuid:5e9a5d5c-0000-4000-8000-000000000000')).toBeNull();
    expect(isbnOf(null)).toBeNull();
  });
  it('fills the template percent-encoded, and is absent when unset or when the ISBN it asks for is missing', () => {
    expect(buyLinkOf('https://shop.example/isbn/{isbn}', title)).toBe('https://shop.example/isbn/9780141439518');
    expect(buyLinkOf('https://shop.example/?q={title}&a={author}&id={book_id}', title)).toBe('https://shop.example/?q=Pride%20%26%20Prejudice&a=Jane%20Austen&id=b%2F1');
    expect(buyLinkOf(null, title)).toBeNull();
    expect(buyLinkOf('https://shop.example/isbn/{isbn}', { ...title, identifier: 'urn:uuid:x' })).toBeNull();
  });
  it('hides most of an address', () => {
    expect(maskEmail('ada@example.com')).toBe('a•••@example.com');
    expect(maskEmail('nonsense')).toBe('•••');
  });
});
