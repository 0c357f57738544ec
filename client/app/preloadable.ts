import { createElement, lazy, type ComponentType } from 'react';

export type Preloadable = ComponentType & { preload(): Promise<void> };

/**
 * React.lazy for a screen without props that can be loaded ahead: once `preload()` has
 * resolved, it renders at once instead of suspending for a frame. A public page uses it when it
 * hands over to the app on the same screen, so the visitor sees no spinner between two
 * identical pages.
 */
export function preloadable(load: () => Promise<{ default: ComponentType }>): Preloadable {
  let loaded: ComponentType | undefined;
  const fetchModule = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(fetchModule);
  const Preloaded = () => createElement(loaded ?? Lazy);
  return Object.assign(Preloaded, { preload: () => fetchModule().then(() => undefined) });
}
