-- pgvector (built from ../shared/vendor by tooling/scripts/ensure-postgres.mjs): the vector type of semantic_chunks.embedding.
CREATE EXTENSION IF NOT EXISTS vector;
--> statement-breakpoint
CREATE TABLE "semantic_chunks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "semantic_chunks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"fingerprint_id" bigint NOT NULL,
	"message_id" bigint NOT NULL,
	"session_id" text NOT NULL,
	"chunk_index" integer NOT NULL,
	"start" integer NOT NULL,
	"end" integer NOT NULL,
	"content_hash" text NOT NULL,
	"chunker_version" integer NOT NULL,
	"embedding" vector,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"lease_owner" text,
	"lease_until" bigint,
	"next_attempt_at" bigint,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "semantic_fingerprints" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "semantic_fingerprints_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"provider" text NOT NULL,
	"endpoint" text NOT NULL,
	"model" text NOT NULL,
	"dims" integer NOT NULL,
	"normalization" text DEFAULT 'l2' NOT NULL,
	"chunker_version" integer NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "semantic_projects" (
	"project_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"endpoint" text NOT NULL,
	"enabled_at" bigint,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "semantic_chunks" ADD CONSTRAINT "semantic_chunks_fingerprint_id_semantic_fingerprints_id_fk" FOREIGN KEY ("fingerprint_id") REFERENCES "public"."semantic_fingerprints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "semantic_chunks" ADD CONSTRAINT "semantic_chunks_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "semantic_chunks" ADD CONSTRAINT "semantic_chunks_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "semantic_projects" ADD CONSTRAINT "semantic_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "semantic_chunks_uq" ON "semantic_chunks" USING btree ("fingerprint_id","message_id","content_hash","chunk_index");--> statement-breakpoint
CREATE INDEX "semantic_chunks_fp_status_idx" ON "semantic_chunks" USING btree ("fingerprint_id","status");--> statement-breakpoint
CREATE INDEX "semantic_chunks_message_idx" ON "semantic_chunks" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "semantic_chunks_session_idx" ON "semantic_chunks" USING btree ("session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "semantic_fingerprints_key_unique" ON "semantic_fingerprints" USING btree ("key");