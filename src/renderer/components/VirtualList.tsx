// A windowed list for long histories and feeds: only what is near the viewport is in the DOM.
// Heights are measured (ResizeObserver) and kept per key, so prepending older pages and late layout
// changes keep the item under the reader where it was (scroll anchoring by key, not by pixel).
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';

export interface VirtualListProps<T> {
  items: readonly T[];
  getKey: (item: T) => string;
  estimate: (item: T) => number;
  render: (item: T, index: number) => ReactNode;
  /** Which end follows new items while the reader is there: chat logs stick to the bottom, feeds to the top. */
  stick: 'bottom' | 'top';
  /** Called when the reader nears the top (to load older items). */
  onNearTop?: () => void;
  /** Scroll this key into view once it is in items. */
  scrollToKey?: string | null;
  onScrolledTo?: () => void;
  label: string;
  role?: string;
  className?: string;
  overscan?: number;
  empty?: ReactNode;
}

/** First index i with offsets[i + 1] > y. */
function indexAt(offsets: Float64Array, n: number, y: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1]! > y) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(0, lo);
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, getKey, estimate, render, stick, onNearTop, overscan = 800 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [measured, setMeasured] = useState(0);
  const [view, setView] = useState({ top: 0, height: 0 });
  const atEdge = useRef(true);
  const stickRef = useRef(stick);
  stickRef.current = stick;
  const anchor = useRef<{ key: string; index: number; delta: number } | null>(null);

  const keys = useMemo(() => items.map(getKey), [items, getKey]);
  // Where a key is now; the last known index and a prepend shift are tried before a full search.
  const indexOfKey = (key: string, hint = -1): number | undefined => {
    if (hint >= 0 && keys[hint] === key) return hint;
    const shifted = hint + (keys.length - prevLength.current);
    if (hint >= 0 && keys[shifted] === key) return shifted;
    const i = keys.indexOf(key);
    return i < 0 ? undefined : i;
  };
  const prevLength = useRef(0);
  const offsets = useMemo(() => {
    const o = new Float64Array(items.length + 1);
    const h = heights.current;
    for (let i = 0; i < items.length; i++) o[i + 1] = o[i]! + (h.get(keys[i]!) ?? estimate(items[i]!));
    return o;
    // `measured` changes when a height does.
  }, [items, keys, estimate, measured]);
  const total = offsets[items.length]!;
  const latest = useRef({ offsets, keys, n: items.length });
  latest.current = { offsets, keys, n: items.length };

  const observer = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver((entries) => {
            let changed = false;
            for (const e of entries) {
              const el = e.target as HTMLElement;
              const key = el.dataset.key;
              if (!key) continue;
              const h = e.borderBoxSize?.[0]?.blockSize ?? el.getBoundingClientRect().height;
              if (h > 0 && Math.abs((heights.current.get(key) ?? -1) - h) > 0.5) {
                heights.current.set(key, h);
                changed = true;
              }
            }
            if (changed) setMeasured((m) => m + 1);
          }),
    [],
  );
  useEffect(() => () => observer?.disconnect(), [observer]);

  // The viewport's own size.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const update = () => {
      // The viewport changed size (a banner came or went): a reader at the followed edge stays there.
      if (atEdge.current && stickRef.current === 'bottom') el.scrollTop = el.scrollHeight - el.clientHeight;
      setView((v) => (v.height === el.clientHeight && v.top === el.scrollTop ? v : { top: el.scrollTop, height: el.clientHeight }));
    };
    update();
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    ro?.observe(el);
    return () => ro?.disconnect();
  }, []);

  const capture = (el: HTMLDivElement) => {
    const { offsets: o, keys: k, n } = latest.current;
    const top = el.scrollTop;
    atEdge.current = stick === 'bottom' ? el.scrollHeight - top - el.clientHeight < 32 : top < 4;
    if (n > 0) {
      // Anchor on a real item: a header row at index 0 would pin the view to the top while pages are prepended.
      const i = Math.min(n - 1, Math.max(indexAt(o, n, top), n > 1 ? 1 : 0));
      anchor.current = { key: k[i]!, index: i, delta: top - o[i]! };
    }
  };

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    capture(el);
    setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
    if (onNearTop && el.scrollTop < 600) onNearTop();
  };

  // Keep the reader's place (or the followed edge) whenever items or heights change.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (atEdge.current) {
      const want = stick === 'bottom' ? Math.max(0, el.scrollHeight - el.clientHeight) : 0;
      if (Math.abs(el.scrollTop - want) > 0.5) el.scrollTop = want;
    } else if (anchor.current) {
      const i = indexOfKey(anchor.current.key, anchor.current.index);
      if (i !== undefined) {
        anchor.current.index = i;
        const want = offsets[i]! + anchor.current.delta;
        if (Math.abs(el.scrollTop - want) > 0.5) el.scrollTop = want;
      }
    }
    prevLength.current = keys.length;
    if (el.scrollTop !== view.top) setView({ top: el.scrollTop, height: el.clientHeight });
  }, [offsets]);

  // A short history does not fill the viewport: ask for older items right away.
  useEffect(() => {
    if (onNearTop && view.height > 0 && total < view.height + 200) onNearTop();
  }, [total, view.height, onNearTop]);

  // Jump to a given item (e.g. from the Approvals inbox or a reply's quote).
  const { scrollToKey, onScrolledTo } = props;
  useLayoutEffect(() => {
    if (!scrollToKey) return;
    const el = scroller.current;
    const i = indexOfKey(scrollToKey);
    if (!el || i === undefined) return;
    el.scrollTop = Math.max(0, offsets[i]! - el.clientHeight / 3);
    capture(el);
    atEdge.current = false;
    onScrolledTo?.();
  }, [scrollToKey, keys]);

  const n = items.length;
  let start = 0;
  let end = 0;
  if (n > 0) {
    const height = view.height || 1000;
    start = indexAt(offsets, n, Math.max(0, view.top - overscan));
    end = Math.min(n, indexAt(offsets, n, view.top + height + overscan) + 1);
  }
  const shown: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const key = keys[i]!;
    shown.push(
      <div
        key={key}
        data-key={key}
        className="vl-item"
        style={{ top: offsets[i] }}
        ref={(el) => {
          if (!el || !observer) return;
          observer.observe(el);
          return () => observer.unobserve(el);
        }}
      >
        {render(items[i]!, i)}
      </div>,
    );
  }

  return (
    <div ref={scroller} className={`vl ${props.className ?? ''}`} onScroll={onScroll} role={props.role} aria-label={props.label} tabIndex={0}>
      {n === 0 && props.empty}
      <div className="vl-space" style={{ height: total }}>
        {shown}
      </div>
    </div>
  );
}
