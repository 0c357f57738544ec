CREATE TABLE "candle_cache" (
	"source" text NOT NULL,
	"symbol" text NOT NULL,
	"timeframe" text NOT NULL,
	"time" bigint NOT NULL,
	"open" double precision NOT NULL,
	"high" double precision NOT NULL,
	"low" double precision NOT NULL,
	"close" double precision NOT NULL,
	"volume" double precision NOT NULL,
	CONSTRAINT "candle_cache_source_symbol_timeframe_time_pk" PRIMARY KEY("source","symbol","timeframe","time")
);
--> statement-breakpoint
CREATE TABLE "candle_coverage" (
	"source" text NOT NULL,
	"symbol" text NOT NULL,
	"timeframe" text NOT NULL,
	"oldest_available" bigint,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "candle_coverage_source_symbol_timeframe_pk" PRIMARY KEY("source","symbol","timeframe")
);
--> statement-breakpoint
CREATE INDEX "candle_coverage_used_at_idx" ON "candle_coverage" USING btree ("used_at");