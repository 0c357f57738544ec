-- Issue 19, decision 0059: the agents list and the notifications list of an owner are cached per
-- process on PGlite, and the database itself announces every change to what they show, so no
-- write can be missed (any module, raw SQL, cascades): each insert, update or delete of these
-- rows NOTIFYs the owner's id on the app's channel (server/modules/events/bus.ts) at commit.
-- Identical notices of one transaction are delivered once. An update notifies once when the row
-- keeps its owner (the old row's). pg_notify is called inline: through a helper SQL function
-- a row's notice cost 1.7 times as much on PGlite.
--
-- Only where the setting app.owner_change_notices is 'on' (PGlite sets it in its configuration,
-- server/db/client.ts). Elsewhere (PostgreSQL, whose processes do not cache these lists) the
-- trigger's WHEN is false and its function never runs.
CREATE FUNCTION "app_agents_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('app_events', json_build_object('c', 'agents', 'k', OLD.owner_id)::text); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.owner_id IS DISTINCT FROM OLD.owner_id) THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'agents', 'k', NEW.owner_id)::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- A run's agent's owner. A run deleted with its agent finds none: the agent's own notice covers it.
CREATE FUNCTION "app_agent_runs_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'agents', 'k', a.owner_id)::text) FROM "agents" a WHERE a.id = OLD.agent_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.agent_id IS DISTINCT FROM OLD.agent_id) THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'agents', 'k', a.owner_id)::text) FROM "agents" a WHERE a.id = NEW.agent_id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "app_notifications_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('app_events', json_build_object('c', 'notifications', 'k', OLD.user_id)::text); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'notifications', 'k', NEW.user_id)::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- A delivery's notification's owner (the list shows each notification's deliveries).
CREATE FUNCTION "app_channel_deliveries_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'notifications', 'k', n.user_id)::text) FROM "notifications" n WHERE n.id = OLD.notification_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.notification_id IS DISTINCT FROM OLD.notification_id) THEN
    PERFORM pg_notify('app_events', json_build_object('c', 'notifications', 'k', n.user_id)::text) FROM "notifications" n WHERE n.id = NEW.notification_id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- TRUNCATE names no owner: every owner's entries go ('*').
CREATE FUNCTION "app_owners_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('app_events', json_build_object('c', TG_ARGV[0], 'k', '*')::text);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "agents_owner_changed" AFTER INSERT OR UPDATE OR DELETE ON "agents" FOR EACH ROW
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_agents_changed"();--> statement-breakpoint
CREATE TRIGGER "agent_runs_owner_changed" AFTER INSERT OR UPDATE OR DELETE ON "agent_runs" FOR EACH ROW
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_agent_runs_changed"();--> statement-breakpoint
CREATE TRIGGER "notifications_owner_changed" AFTER INSERT OR UPDATE OR DELETE ON "notifications" FOR EACH ROW
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_notifications_changed"();--> statement-breakpoint
CREATE TRIGGER "channel_deliveries_owner_changed" AFTER INSERT OR UPDATE OR DELETE ON "channel_deliveries" FOR EACH ROW
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_channel_deliveries_changed"();--> statement-breakpoint
CREATE TRIGGER "agents_truncated" AFTER TRUNCATE ON "agents" FOR EACH STATEMENT
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_owners_truncated"('agents');--> statement-breakpoint
CREATE TRIGGER "agent_runs_truncated" AFTER TRUNCATE ON "agent_runs" FOR EACH STATEMENT
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_owners_truncated"('agents');--> statement-breakpoint
CREATE TRIGGER "notifications_truncated" AFTER TRUNCATE ON "notifications" FOR EACH STATEMENT
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_owners_truncated"('notifications');--> statement-breakpoint
CREATE TRIGGER "channel_deliveries_truncated" AFTER TRUNCATE ON "channel_deliveries" FOR EACH STATEMENT
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_owners_truncated"('notifications');
