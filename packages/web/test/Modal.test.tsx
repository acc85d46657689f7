import { act, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Modal, MODAL_BODY_CLASS, MODAL_TRANSITION_MS } from '../src/components/Modal.tsx';

function Harness({ onClose }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open it
      </button>
      <Modal
        open={open}
        onClose={() => {
          onClose?.();
          setOpen(false);
        }}
        title="Delete playlist"
        footer={
          <>
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button">Confirm</button>
          </>
        }
      >
        <p>Are you sure you want to delete this playlist? This action cannot be undone.</p>
        <input aria-label="Name" />
      </Modal>
    </>
  );
}

const tab = (shift = false) => fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Tab', shiftKey: shift });

describe('Modal (spec §4, §5, §9)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is a labelled modal dialog that marks <body> while open and unmounts after the 300 ms transition', () => {
    render(<Harness />);
    expect(document.body.classList.contains(MODAL_BODY_CLASS)).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Open it' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete playlist' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(document.body.classList.contains(MODAL_BODY_CLASS)).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(document.body.classList.contains(MODAL_BODY_CLASS)).toBe(false);
    // still in the document while it fades out
    expect(screen.queryByRole('dialog')).not.toBeNull();
    act(() => {
      vi.advanceTimersByTime(MODAL_TRANSITION_MS);
    });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('focuses inside, cycles Tab and Shift+Tab within the dialog, and gives focus back on Escape', () => {
    const onClose = vi.fn();
    render(<Harness onClose={onClose} />);
    const opener = screen.getByRole('button', { name: 'Open it' });
    opener.focus();
    fireEvent.click(opener);

    const input = screen.getByRole('textbox', { name: 'Name' });
    const close = screen.getByRole('button', { name: 'Close' });
    const confirm = screen.getByRole('button', { name: 'Confirm' });
    // the first control of the body gets focus
    expect(document.activeElement).toBe(input);

    // forward from the last control wraps to the first (the close button in the header)
    confirm.focus();
    tab();
    expect(document.activeElement).toBe(close);
    // backward from the first wraps to the last
    tab(true);
    expect(document.activeElement).toBe(confirm);

    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(opener);
    act(() => {
      vi.advanceTimersByTime(MODAL_TRANSITION_MS);
    });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('makes the page behind it inert while open', () => {
    const root = document.createElement('div');
    root.id = 'root';
    document.body.appendChild(root);
    try {
      render(<Harness />, { container: root });
      fireEvent.click(screen.getByRole('button', { name: 'Open it' }));
      expect(root.hasAttribute('inert')).toBe(true);
      fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
      expect(root.hasAttribute('inert')).toBe(false);
    } finally {
      root.remove();
    }
  });
});
