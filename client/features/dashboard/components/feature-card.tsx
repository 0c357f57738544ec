import { Link } from 'react-router';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import type { DashboardItem } from '../lib/dashboard-items.ts';

export type CardBadge = { label: string; variant: BadgeVariant };
/** A link when it navigates, a button when it opens something on this page. */
export type CardAction = { label: string; to: string } | { label: string; onClick(): void };

/** One assistant or agent on the dashboard; what it offers depends on the viewer's role, which
 * the page decides. */
export function FeatureCard({ item, badge, action }: { item: DashboardItem; badge?: CardBadge; action: CardAction }) {
  const { Icon } = item;
  const actionClass = 'mt-6 w-full';
  return (
    <Card as="li" className="flex flex-col p-6">
      <div className="flex items-start gap-4">
        <span className="inline-flex size-11 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-600">
          <Icon aria-hidden="true" className="size-6" />
        </span>
        <div className="min-w-0 flex-1">
          <h3 className="text-lg font-semibold text-slate-900">{item.name}</h3>
          {item.maker && <p className="text-sm text-slate-600">{item.maker}</p>}
        </div>
        {badge && <Badge variant={badge.variant}>{badge.label}</Badge>}
      </div>
      <p className="mt-4 flex-1 text-slate-600">{item.description}</p>
      {'to' in action ? (
        <Link to={action.to} className={buttonClasses({ className: actionClass })}>
          {action.label}
        </Link>
      ) : (
        <Button variant="outline" className={actionClass} onClick={action.onClick}>
          {action.label}
        </Button>
      )}
    </Card>
  );
}
