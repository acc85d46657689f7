/** The event listeners one chapter frame's parts add, removed together when the frame goes (FrameController.destroy). */
export type Listen = (target: EventTarget, type: string, fn: (e: Event) => void, opts?: AddEventListenerOptions) => void;

export class Listeners {
  private removers: (() => void)[] = [];

  readonly listen: Listen = (target, type, fn, opts) => {
    target.addEventListener(type, fn, opts);
    this.removers.push(() => target.removeEventListener(type, fn, opts));
  };

  removeAll() {
    for (const remove of this.removers) remove();
    this.removers = [];
  }
}
