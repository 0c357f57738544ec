import { Tabs } from 'radix-ui';
import type { ReactNode } from 'react';

/** Radix tabs styled once: arrow keys move between tabs, the panel follows. */
export function TabList({ label, tabs }: { label: string; tabs: ReadonlyArray<{ value: string; label: ReactNode }> }) {
  return (
    <Tabs.List aria-label={label} className="flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
      {tabs.map((tab) => (
        <Tabs.Trigger
          key={tab.value}
          value={tab.value}
          className="flex-1 rounded-md px-3 py-1.5 text-sm font-medium whitespace-nowrap text-slate-700 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm"
        >
          {tab.label}
        </Tabs.Trigger>
      ))}
    </Tabs.List>
  );
}

export const TabPanel = ({ value, children }: { value: string; children: ReactNode }) => (
  <Tabs.Content value={value} className="mt-4 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
    {children}
  </Tabs.Content>
);
