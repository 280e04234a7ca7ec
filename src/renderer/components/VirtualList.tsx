// A windowed list for long histories and feeds: only what is near the viewport is in the DOM.
// Heights are measured (ResizeObserver) and kept per key in a Fenwick tree, so a measurement costs
// O(log n) and finding the rows at a scroll position too, even with 100,000 rows loaded. Prepending older
// pages and late layout changes keep the item under the reader where it was (anchoring by key, not pixel).
// A scroll whose event has not come yet (it comes with the next frame) wins over that anchor, and a reader near
// the top is asked about again after every change, so older pages keep coming while they stay there.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type WheelEvent } from 'react';

/** Within this many pixels of the top, the list asks for older items (onNearTop). */
const NEAR_TOP = 600;

export interface VirtualListProps<T> {
  items: readonly T[];
  getKey: (item: T) => string;
  estimate: (item: T) => number;
  render: (item: T, index: number) => ReactNode;
  /** Which end follows new items while the reader is there: chat logs stick to the bottom, feeds to the top. */
  stick: 'bottom' | 'top';
  /**
   * Called when the reader nears the top (to load older items): on scrolling there, after each change of the items
   * or their heights while still there, and on a further wheel, key or touch up there. May be called while a load
   * is under way (the callee ignores those).
   */
  onNearTop?: () => void;
  /** Scroll this key into view once it is in items. */
  scrollToKey?: string | null;
  onScrolledTo?: () => void;
  /** Told when the reader reaches or leaves the followed edge (the bottom of a chat log). */
  onAtEdgeChange?: (atEdge: boolean) => void;
  label: string;
  role?: string;
  className?: string;
  overscan?: number;
  empty?: ReactNode;
}

interface Layout {
  keys: string[];
  index: Map<string, number>;
  tree: HeightTree;
}

/** Prefix sums of item heights with O(log n) update, prefix and search. */
class HeightTree {
  private readonly tree: Float64Array;
  private readonly top: number;
  constructor(readonly sizes: Float64Array) {
    const n = sizes.length;
    const t = new Float64Array(n + 1);
    for (let i = 1; i <= n; i++) {
      t[i]! += sizes[i - 1]!;
      const j = i + (i & -i);
      if (j <= n) t[j]! += t[i]!;
    }
    this.tree = t;
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = n ? top : 0;
  }
  get length(): number {
    return this.sizes.length;
  }
  set(i: number, size: number): void {
    const delta = size - this.sizes[i]!;
    this.sizes[i] = size;
    for (let j = i + 1; j < this.tree.length; j += j & -j) this.tree[j]! += delta;
  }
  /** Total height of items [0, i). */
  offset(i: number): number {
    let s = 0;
    for (let j = i; j > 0; j -= j & -j) s += this.tree[j]!;
    return s;
  }
  /** Index of the item at y (clamped to the list). */
  indexAt(y: number): number {
    const n = this.sizes.length;
    if (n === 0) return 0;
    let pos = 0;
    let rest = y;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= n && this.tree[next]! <= rest) {
        pos = next;
        rest -= this.tree[next]!;
      }
    }
    return Math.min(Math.max(pos, 0), n - 1);
  }
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, getKey, estimate, render, stick, onNearTop, overscan = 500 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  /** Measured heights by key; they outlive the rows (a row scrolled away keeps its height). */
  const heights = useRef(new Map<string, number>());
  const estimates = useRef(new Map<string, number>());
  const [measured, setMeasured] = useState(0);
  const [view, setView] = useState({ top: 0, height: 0 });
  const atEdge = useRef(true);
  const stickRef = useRef(stick);
  stickRef.current = stick;
  const anchor = useRef<{ key: string; delta: number } | null>(null);

  /** The scroll position and height the list last took into account; el.scrollTop differs while a scroll's event is to come. */
  const seen = useRef({ top: 0, height: 0 });

  const layout = useMemo((): Layout => {
    const n = items.length;
    const keys: string[] = new Array(n);
    const index = new Map<string, number>();
    const sizes = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const k = getKey(items[i]!);
      keys[i] = k;
      index.set(k, i);
      let h = heights.current.get(k);
      if (h === undefined) {
        h = estimates.current.get(k);
        if (h === undefined) estimates.current.set(k, (h = estimate(items[i]!)));
      }
      sizes[i] = h;
    }
    return { keys, index, tree: new HeightTree(sizes) };
  }, [items, getKey, estimate]);
  const latest = useRef(layout);
  latest.current = layout;
  /** The layout the DOM showed at the last commit (a scroll not yet seen was made against it). */
  const rendered = useRef(layout);
  const { keys, index, tree } = layout;
  const total = tree.offset(tree.length);

  const observer = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver((entries) => {
            let changed = false;
            const l = latest.current;
            for (const e of entries) {
              const el = e.target as HTMLElement;
              const key = el.dataset.key;
              if (!key) continue;
              const h = e.borderBoxSize?.[0]?.blockSize ?? el.getBoundingClientRect().height;
              if (h <= 0 || Math.abs((heights.current.get(key) ?? -1) - h) <= 0.5) continue;
              heights.current.set(key, h);
              const i = l.index.get(key);
              if (i !== undefined && l.keys[i] === key) l.tree.set(i, h);
              changed = true;
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
      if (atEdge.current && stickRef.current === 'bottom') {
        el.scrollTop = el.scrollHeight - el.clientHeight;
        seen.current = { top: el.scrollTop, height: el.scrollHeight };
      }
      setView((v) => (v.height === el.clientHeight && v.top === el.scrollTop ? v : { top: el.scrollTop, height: el.clientHeight }));
    };
    update();
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    ro?.observe(el);
    return () => ro?.disconnect();
  }, []);

  /**
   * Takes the reader's place: whether they are at the followed edge, and the item under them (the anchor). l and
   * height are the layout and scroll height the position was taken in (the previous ones for a scroll made
   * before a commit whose event has not come yet).
   */
  const capture = (el: HTMLDivElement, l: Layout = latest.current, height = el.scrollHeight) => {
    const { keys: k, tree: t } = l;
    const top = el.scrollTop;
    const was = atEdge.current;
    atEdge.current = stick === 'bottom' ? height - top - el.clientHeight < 32 : top < 4;
    if (was !== atEdge.current) props.onAtEdgeChange?.(atEdge.current);
    const n = t.length;
    if (n > 0) {
      // Anchor on a real item: a header row at index 0 would pin the view to the top while pages are prepended.
      const i = Math.min(n - 1, Math.max(t.indexAt(top), n > 1 ? 1 : 0));
      anchor.current = { key: k[i]!, delta: top - t.offset(i) };
    }
    seen.current = { top, height };
  };

  /**
   * Whether the scroll position moved since the list last saw it: a scroll (the reader's, a program's) whose
   * event comes with the next frame. Restoring the old anchor then would undo it (a reader who dragged to the top
   * while a measurement or a live message came in would be put back, and no older page would load). A lower
   * position at the very end is the browser clamping to shorter content, not a scroll.
   */
  const unseenScroll = (el: HTMLDivElement): boolean => {
    const top = el.scrollTop;
    const was = seen.current.top;
    if (Math.abs(top - was) <= 0.5) return false;
    return !(top < was && top >= el.scrollHeight - el.clientHeight - 0.5);
  };

  const nearTop = () => {
    const el = scroller.current;
    if (el && onNearTop && el.scrollTop < NEAR_TOP) onNearTop();
  };

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    capture(el);
    setView((v) => (v.top === el.scrollTop && v.height === el.clientHeight ? v : { top: el.scrollTop, height: el.clientHeight }));
    nearTop();
  };

  // At the top, scrolling further up moves nothing and fires no scroll event: a wheel, key or touch up there asks
  // again (after a load that failed, say).
  const onWheel = (e: WheelEvent) => {
    if (e.deltaY < 0) nearTop();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowUp' || e.key === 'PageUp' || e.key === 'Home') nearTop();
  };

  // Keep the reader's place (or the followed edge) whenever items or heights change.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A scroll made before this commit whose event has not come yet: take the reader's place from it first.
    if (unseenScroll(el)) capture(el, rendered.current, seen.current.height);
    rendered.current = layout;
    if (atEdge.current) {
      const want = stick === 'bottom' ? Math.max(0, el.scrollHeight - el.clientHeight) : 0;
      if (Math.abs(el.scrollTop - want) > 0.5) el.scrollTop = want;
    } else if (anchor.current) {
      const i = index.get(anchor.current.key);
      if (i !== undefined) {
        const want = tree.offset(i) + anchor.current.delta;
        if (Math.abs(el.scrollTop - want) > 0.5) el.scrollTop = want;
      }
    }
    seen.current = { top: el.scrollTop, height: el.scrollHeight };
    if (el.scrollTop !== view.top) setView({ top: el.scrollTop, height: el.clientHeight });
    // Still near the top after the items or their heights changed (a page came in that added little or nothing
    // above, a scroll to the top whose event came while a page was loading): ask for older items again. Here, in
    // the commit, the rows in the DOM are those of the store (a later effect could run after the next page is in
    // the store but before it is laid out, and ask for one more). Each page moves the reader down by its height,
    // so this asks for one page at a time while the reader stays near the top, never for the whole history.
    if (el.clientHeight > 0) nearTop();
  }, [layout, measured]);

  // A short history does not fill the viewport: ask for older items right away.
  useEffect(() => {
    if (onNearTop && view.height > 0 && total < view.height + 200) onNearTop();
  }, [total, view.height, onNearTop]);

  // Jump to a given item (e.g. from the Approvals inbox or a reply's quote).
  const { scrollToKey, onScrolledTo } = props;
  useLayoutEffect(() => {
    if (!scrollToKey) return;
    const el = scroller.current;
    const i = index.get(scrollToKey);
    if (!el || i === undefined) return;
    el.scrollTop = Math.max(0, tree.offset(i) - el.clientHeight / 3);
    capture(el);
    rendered.current = layout;
    if (atEdge.current) props.onAtEdgeChange?.(false);
    atEdge.current = false;
    onScrolledTo?.();
  }, [scrollToKey, layout]);

  const n = items.length;
  const shown: ReactNode[] = [];
  if (n > 0) {
    const height = view.height || 1000;
    const start = tree.indexAt(Math.max(0, view.top - overscan));
    const end = Math.min(n, tree.indexAt(view.top + height + overscan) + 1);
    for (let i = start; i < end; i++) {
      const key = keys[i]!;
      shown.push(
        <div
          key={key}
          data-key={key}
          className="vl-item"
          style={{ top: tree.offset(i) }}
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
  }

  return (
    <div
      ref={scroller}
      className={`vl vl-${stick} ${props.className ?? ''}`}
      onScroll={onScroll}
      onWheel={onWheel}
      onKeyDown={onKeyDown}
      onTouchMove={nearTop}
      role={props.role}
      aria-label={props.label}
      tabIndex={0}
    >
      {n === 0 && props.empty}
      <div className="vl-space" style={{ height: total }}>
        {shown}
      </div>
    </div>
  );
}
