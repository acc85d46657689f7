/** The shortcuts as a table per scope, made from the registry: the help popup's list and the settings page's. */
import { SHORTCUT_MESSAGES } from '@lectern/core';
import { Fragment } from 'react';
import { SCOPES, type ShortcutDef } from './registry.ts';
import './shortcuts.css';

function Keys({ def }: { def: ShortcutDef }) {
  return (
    <>
      {def.keys.map((combo, i) => (
        <Fragment key={i}>
          {i > 0 ? ', ' : null}
          {combo.map((key, j) => (
            <Fragment key={j}>
              {j > 0 ? '+' : null}
              <kbd className="shortcuts__key">{key}</kbd>
            </Fragment>
          ))}
        </Fragment>
      ))}
    </>
  );
}

export function ShortcutList({ defs, markSingleKeys = false, headingLevel = 3 }: { defs: readonly ShortcutDef[]; markSingleKeys?: boolean; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <div className="shortcuts">
      {SCOPES.map((scope) => {
        const rows = defs.filter((d) => d.scope === scope);
        if (!rows.length) return null;
        return (
          <section key={scope} className="shortcuts__scope" aria-labelledby={`shortcuts-${scope}`}>
            <Heading className="shortcuts__heading" id={`shortcuts-${scope}`}>
              {SHORTCUT_MESSAGES.scopes[scope]}
            </Heading>
            <table className="shortcuts__table">
              <thead className="visually-hidden">
                <tr>
                  <th scope="col">{SHORTCUT_MESSAGES.keysColumn}</th>
                  <th scope="col">{SHORTCUT_MESSAGES.actionColumn}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((def) => (
                  <tr key={def.id} data-shortcut={def.id}>
                    <td className="shortcuts__keys">
                      <Keys def={def} />
                    </td>
                    <td>
                      {SHORTCUT_MESSAGES.labels[def.id]}
                      {markSingleKeys && def.singleKey ? <span className="shortcuts__mark"> ({SHORTCUT_MESSAGES.singleKeyMark})</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        );
      })}
    </div>
  );
}
