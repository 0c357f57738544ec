-- Issue 30, decision 0073: the trigger state of the owners' conditions. condition_states: per
-- (agent, condition, market) when it last notified and for which candle (cooldown, once per
-- candle); condition_controls: per (agent, condition) disarmed ('only once') and snoozed until.
-- Both go with their agent. notifications.conditions: the conditions a notification tells of.
-- Existing agents have no conditions: nothing of theirs changes.
CREATE TABLE "condition_controls" (
	"agent_id" uuid NOT NULL,
	"condition_id" uuid NOT NULL,
	"disarmed" boolean DEFAULT false NOT NULL,
	"snoozed_until" timestamp with time zone,
	CONSTRAINT "condition_controls_agent_id_condition_id_pk" PRIMARY KEY("agent_id","condition_id")
);
--> statement-breakpoint
CREATE TABLE "condition_states" (
	"agent_id" uuid NOT NULL,
	"condition_id" uuid NOT NULL,
	"market" text NOT NULL,
	"last_notified_at" timestamp with time zone,
	"last_notified_candle" bigint,
	CONSTRAINT "condition_states_agent_id_condition_id_market_pk" PRIMARY KEY("agent_id","condition_id","market")
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "conditions" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "condition_controls" ADD CONSTRAINT "condition_controls_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "condition_states" ADD CONSTRAINT "condition_states_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;