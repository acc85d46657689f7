/**
 * Display controls (reader.md §2): day / cloudy / night, font size (buttons and slider: size = min + position/100),
 * column width (slider position/152*100 percent, hidden on Android), brightness (50-255 in steps of 25), scroll or
 * paged reading, PDF zoom, and Reset. Every value goes through core's clamps before it is used or stored.
 */
import {
  columnWidthFromSlider,
  fontSizeFromSlider,
  READER_CONSTANTS,
  READER_LIMITS,
  sliderFromFontSize,
  stepFontSize,
  stepZoom,
  type ReaderPreferences,
  type ReadingMode,
} from '@lectern/core';
import { memo, useId, useRef } from 'react';
import { track } from '../../shared/analytics.ts';
import { BRIGHTNESS_FULL, isAndroid, type ReaderChrome } from './engine/preferences.ts';
import { ReaderIcon, type ReaderIconName } from '../../shared/reading/ReaderIcon.tsx';
import { SidePanel } from '../../shared/reading/SidePanel.tsx';
import { ScriptsConsentSetting } from './ScriptsConsentSetting.tsx';

export interface SettingsPanelProps {
  open: boolean;
  prefs: ReaderPreferences;
  isPdf: boolean;
  /** A PDF's zoom as shown (fitted to the width, or the reader's own); the stored zoom_factor when not given. */
  zoom?: number;
  onChange: (patch: Partial<ReaderPreferences>) => void;
  onReset: () => void;
  onFitWidth?: () => void;
  onClose: () => void;
  /** The masthead (top bar) and menu (bottom bar) toggles. */
  chrome: ReaderChrome;
  onChrome: (patch: Partial<ReaderChrome>) => void;
  /** a title allowed to run scripts: the reader's answer for it, and its withdrawal (docs/decisions.md "Scripted publications") */
  scriptsBookId?: string | null;
}

const MODES: { value: ReadingMode; label: string; icon: ReaderIconName }[] = [
  { value: 'day-mode', label: 'Day', icon: 'sun' },
  { value: 'cloudy-mode', label: 'Cloudy', icon: 'cloud' },
  { value: 'night-mode', label: 'Night', icon: 'moon' },
];

const FONT_SLIDER_MAX = sliderFromFontSize(READER_LIMITS.fontSize.max);
const COLUMN_SLIDER = {
  min: Math.ceil((READER_LIMITS.columnWidth.min / 100) * READER_CONSTANTS.fontSliderWidth),
  max: Math.floor((READER_LIMITS.columnWidth.max / 100) * READER_CONSTANTS.fontSliderWidth),
};
const columnSliderOf = (width: number) => Math.round((width / 100) * READER_CONSTANTS.fontSliderWidth);

export const SettingsPanel = memo(function SettingsPanel({ open, prefs, isPdf, zoom = prefs.zoom_factor, onChange, onReset, onFitWidth, onClose, chrome, onChrome, scriptsBookId }: SettingsPanelProps) {
  const id = useId();
  const firstRef = useRef<HTMLButtonElement>(null);
  const android = isAndroid();
  const fontPct = Math.round(prefs.font_size * 100);

  return (
    <SidePanel as="section" open={open} block="reader-settings" label="Display settings" heading="Display" closeLabel="Close display settings" onClose={onClose} initialFocus={firstRef}>

      <div className="reader-settings__group" role="group" aria-labelledby={`${id}-mode`}>
        <p id={`${id}-mode`} className="reader-settings__label">
          Colour mode
        </p>
        <div className="reader-settings__modes">
          {MODES.map((m, i) => (
            <button
              key={m.value}
              ref={i === 0 ? firstRef : undefined}
              type="button"
              className={`reader-mode reader-mode--${m.value}`}
              aria-pressed={prefs.reading_mode === m.value}
              onClick={() => (onChange({ reading_mode: m.value }), track('reader', 'mode', m.value))}
            >
              <ReaderIcon name={m.icon} size={18} />
              {m.label}
            </button>
          ))}
        </div>
      </div>

      {!isPdf ? (
        <>
          <div className="reader-settings__group">
            <label className="reader-settings__label" htmlFor={`${id}-font`}>
              Font size <span className="reader-settings__value">{fontPct}%</span>
            </label>
            <div className="reader-settings__row">
              <button
                type="button"
                className="reader-iconbtn reader-iconbtn--small-a"
                aria-label="Decrease font size"
                disabled={prefs.font_size <= READER_LIMITS.fontSize.min}
                onClick={() => onChange({ font_size: stepFontSize(prefs.font_size, -1) })}
              >
                A<span aria-hidden="true">−</span>
              </button>
              <input
                id={`${id}-font`}
                type="range"
                min={0}
                max={FONT_SLIDER_MAX}
                step={1}
                value={sliderFromFontSize(prefs.font_size)}
                aria-valuetext={`${fontPct}%`}
                onChange={(e) => onChange({ font_size: fontSizeFromSlider(Number(e.target.value)) })}
              />
              <button
                type="button"
                className="reader-iconbtn reader-iconbtn--big-a"
                aria-label="Increase font size"
                disabled={prefs.font_size >= READER_LIMITS.fontSize.max}
                onClick={() => onChange({ font_size: stepFontSize(prefs.font_size, 1) })}
              >
                A<span aria-hidden="true">+</span>
              </button>
            </div>
          </div>

          {!android ? (
            <div className="reader-settings__group">
              <label className="reader-settings__label" htmlFor={`${id}-column`}>
                Column width <span className="reader-settings__value">{Math.round(prefs.column_width)}</span>
              </label>
              <input
                id={`${id}-column`}
                type="range"
                min={COLUMN_SLIDER.min}
                max={COLUMN_SLIDER.max}
                step={1}
                value={columnSliderOf(prefs.column_width)}
                aria-valuetext={`${Math.round(prefs.column_width)} characters per line`}
                onChange={(e) => onChange({ column_width: columnWidthFromSlider(Number(e.target.value)) })}
              />
            </div>
          ) : null}
        </>
      ) : null}

      <div className="reader-settings__group">
        <label className="reader-settings__label" htmlFor={`${id}-brightness`}>
          Brightness <span className="reader-settings__value">{Math.round((Math.min(prefs.brightness, BRIGHTNESS_FULL) / BRIGHTNESS_FULL) * 100)}%</span>
        </label>
        <input
          id={`${id}-brightness`}
          type="range"
          min={READER_LIMITS.brightness.min}
          max={BRIGHTNESS_FULL}
          step={READER_LIMITS.brightness.step}
          value={Math.min(prefs.brightness, BRIGHTNESS_FULL)}
          aria-valuetext={`${Math.round((Math.min(prefs.brightness, BRIGHTNESS_FULL) / BRIGHTNESS_FULL) * 100)}%`}
          onChange={(e) => onChange({ brightness: Number(e.target.value) })}
        />
      </div>

      {isPdf ? (
        <div className="reader-settings__group" role="group" aria-labelledby={`${id}-zoom`}>
          <p id={`${id}-zoom`} className="reader-settings__label">
            Zoom <span className="reader-settings__value">{Math.round(zoom * 100)}%</span>
          </p>
          <div className="reader-settings__row">
            <button type="button" className="reader-iconbtn" aria-label="Zoom out" disabled={zoom <= READER_LIMITS.zoom.min} onClick={() => onChange({ zoom_factor: stepZoom(zoom, -1) })}>
              <ReaderIcon name="zoom-out" />
            </button>
            <button type="button" className="reader-iconbtn" aria-label="Zoom in" disabled={zoom >= READER_LIMITS.zoom.max} onClick={() => onChange({ zoom_factor: stepZoom(zoom, 1) })}>
              <ReaderIcon name="zoom-in" />
            </button>
            <button type="button" className="reader-chip" onClick={onFitWidth}>
              <ReaderIcon name="fit" size={18} />
              Fit to width
            </button>
          </div>
        </div>
      ) : (
        <div className="reader-settings__group" role="group" aria-labelledby={`${id}-layout`}>
          <p id={`${id}-layout`} className="reader-settings__label">
            Layout
          </p>
          <div className="reader-settings__modes reader-settings__modes--two">
            <button type="button" className="reader-chip" aria-pressed={prefs.pagination === 'scroll'} onClick={() => onChange({ pagination: 'scroll' })}>
              <ReaderIcon name="scroll" size={18} />
              Scroll
            </button>
            <button type="button" className="reader-chip" aria-pressed={prefs.pagination === 'page'} onClick={() => onChange({ pagination: 'page' })}>
              <ReaderIcon name="pages" size={18} />
              Pages
            </button>
          </div>
        </div>
      )}

      <div className="reader-settings__group" role="group" aria-labelledby={`${id}-chrome`}>
        <p id={`${id}-chrome`} className="reader-settings__label">
          Show
        </p>
        <div className="reader-settings__modes reader-settings__modes--two">
          <button type="button" className="reader-chip" aria-pressed={chrome.masthead} onClick={() => onChrome({ masthead: !chrome.masthead })}>
            <ReaderIcon name="masthead" size={18} />
            Top bar
          </button>
          <button type="button" className="reader-chip" aria-pressed={chrome.menu} onClick={() => onChrome({ menu: !chrome.menu })}>
            <ReaderIcon name="menu-bar" size={18} />
            Chapter bar
          </button>
        </div>
      </div>

      {scriptsBookId ? <ScriptsConsentSetting bookId={scriptsBookId} /> : null}

      <div className="reader-settings__foot">
        <button type="button" className="reader-chip" onClick={onReset}>
          <ReaderIcon name="reset" size={18} />
          Reset
        </button>
      </div>
    </SidePanel>
  );
});
