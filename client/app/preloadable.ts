import { createElement, lazy, type ComponentType } from 'react';

export type Preloadable<P extends object = object> = ComponentType<P> & { preload(): Promise<void> };

/**
 * React.lazy for a component that can be loaded ahead: once `preload()` has resolved, it renders
 * at once instead of suspending for a frame. A public page uses it when it hands over to the app
 * on the same screen, so the visitor sees no spinner between two identical pages, and the
 * server before it renders a page whose part the browser loads later (an article's Markdown).
 */
export function preloadable(load: () => Promise<{ default: ComponentType }>): Preloadable;
/** With props: name them (`preloadable<{ content: string }>(...)`). */
export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P>;
export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | undefined;
  const fetchModule = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(fetchModule);
  const Preloaded = (props: P) => createElement(loaded ?? (Lazy as ComponentType<P>), props);
  return Object.assign(Preloaded, { preload: () => fetchModule().then(() => undefined) });
}
