/**
 * The subscriber's country (library-playlists-account.md §4: "Country for the EU agreement is remembered locally"),
 * and for an EU country the agreement an EU consumer gives when reading starts at once: without it the 14-day right
 * of withdrawal would let a month be read and refunded. The choice is kept in this browser for the next form.
 */
import { COUNTRY_CODES, COUNTRY_STORAGE_KEY, isEuCountry, SUBSCRIPTION_MESSAGES } from '@lectern/core';
import { useId, useMemo } from 'react';
import { FieldMeta } from '../../components/TextField.tsx';
import { browserStorage } from '../../shared/storage.ts';

/** The country remembered from an earlier form, else the region of the browser's language, else none. */
export function initialCountry(): string {
  const kept = browserStorage()?.getItem(COUNTRY_STORAGE_KEY) ?? '';
  if (COUNTRY_CODES.includes(kept)) return kept;
  try {
    const region = new Intl.Locale(navigator.language).maximize().region ?? '';
    return COUNTRY_CODES.includes(region) ? region : '';
  } catch {
    return '';
  }
}

export function rememberCountry(code: string) {
  try {
    browserStorage()?.setItem(COUNTRY_STORAGE_KEY, code);
  } catch {
    /* a full or refused storage only means the next form asks again */
  }
}

export function CountryField(props: {
  country: string;
  onCountry: (code: string) => void;
  agreed: boolean;
  onAgreed: (agreed: boolean) => void;
  errors?: { country?: string[]; eu_agreement?: string[] };
}) {
  const id = useId();
  const names = useMemo(() => {
    let display: Intl.DisplayNames | null = null;
    try {
      display = new Intl.DisplayNames(['en'], { type: 'region' });
    } catch {
      display = null;
    }
    return COUNTRY_CODES.map((code) => ({ code, name: display?.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name));
  }, []);
  const countryErrors = props.errors?.country ?? [];
  const agreementErrors = props.errors?.eu_agreement ?? [];
  return (
    <>
      <div className={['field', countryErrors.length ? 'field--invalid' : null].filter(Boolean).join(' ')}>
        <label className="field__label" htmlFor={id}>
          Country
        </label>
        <select
          id={id}
          name="country"
          className="field__input"
          required
          value={props.country}
          aria-invalid={countryErrors.length > 0 || undefined}
          aria-describedby={countryErrors.length ? `${id}-error` : undefined}
          onChange={(e) => {
            props.onCountry(e.currentTarget.value);
            if (e.currentTarget.value) rememberCountry(e.currentTarget.value);
          }}
        >
          <option value="">Choose your country</option>
          {names.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
        <FieldMeta errors={countryErrors} errorId={`${id}-error`} />
      </div>
      {isEuCountry(props.country) ? (
        <div className={['field', 'account__agreement', agreementErrors.length ? 'field--invalid' : null].filter(Boolean).join(' ')}>
          <label className="account__agreement-label">
            <input
              type="checkbox"
              name="eu_agreement"
              required
              checked={props.agreed}
              aria-invalid={agreementErrors.length > 0 || undefined}
              aria-describedby={agreementErrors.length ? `${id}-agreement-error` : undefined}
              onChange={(e) => props.onAgreed(e.currentTarget.checked)}
            />
            <span>{SUBSCRIPTION_MESSAGES.euAgreement}</span>
          </label>
          <FieldMeta errors={agreementErrors} errorId={`${id}-agreement-error`} />
        </div>
      ) : null}
    </>
  );
}
