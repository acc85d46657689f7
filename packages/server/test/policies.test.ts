/**
 * The console's and the preview annotations' policies (policies/admin.ts), role by role: the one place routes and
 * services ask who may use the operators' console. The attack suite holds the same answers route by route.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.ts';
import { assertAdmin, assertContentRole, assertPreviewRole } from '../src/policies/admin.ts';

const person = (roles: { is_admin?: 1; is_content_creator?: 1; is_preview_creator?: 1 }) => ({ is_admin: 0, is_content_creator: 0, is_preview_creator: 0, ...roles }) as const;

const ROLES = {
  'signed out': null,
  reader: person({}),
  admin: person({ is_admin: 1 }),
  'content creator': person({ is_content_creator: 1 }),
  'preview creator': person({ is_preview_creator: 1 }),
};

/** The status a policy answers (200: allowed). */
function statusOf(check: () => void): number {
  try {
    check();
    return 200;
  } catch (err) {
    if (err instanceof AppError) return err.status;
    throw err;
  }
}

describe('policies/admin.ts', () => {
  it.each([
    // role, console (admin), content parts, preview annotations
    ['signed out', 401, 401, 401],
    ['reader', 403, 403, 403],
    ['admin', 200, 200, 200],
    ['content creator', 403, 200, 403],
    ['preview creator', 403, 403, 200],
  ] as const)('%s: admin %i, content %i, preview %i', (role, admin, content, preview) => {
    const user = ROLES[role];
    expect([statusOf(() => assertAdmin(user, 'admins only')), statusOf(() => assertContentRole(user)), statusOf(() => assertPreviewRole(user, 'previews only'))]).toEqual([admin, content, preview]);
  });
});
