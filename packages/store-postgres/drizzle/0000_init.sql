CREATE TABLE "message_keywords" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"document" "tsvector" NOT NULL,
	"tokenizer_version" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"role" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"tool_name" text,
	"tool_calls" text,
	"tool_call_id" text,
	"external_id" text,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"visibility" text DEFAULT 'live' NOT NULL,
	"edited_at" bigint,
	"origin_message_id" bigint
);
--> statement-breakpoint
CREATE TABLE "project_folders" (
	"project_id" text NOT NULL,
	"path" text NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"color" text,
	"icon" text,
	"archived" boolean DEFAULT false NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text,
	"parent_session_id" text,
	"lineage" text DEFAULT 'root' NOT NULL,
	"source" text DEFAULT 'desktop' NOT NULL,
	"title" text,
	"cwd" text,
	"git_repo_root" text,
	"git_branch" text,
	"model" text,
	"started_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"ended_at" bigint,
	"end_reason" text,
	"archived" boolean DEFAULT false NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_keywords" ADD CONSTRAINT "message_keywords_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_folders" ADD CONSTRAINT "project_folders_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_keywords_document_gin" ON "message_keywords" USING gin ("document");--> statement-breakpoint
CREATE INDEX "messages_session_idx" ON "messages" USING btree ("session_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_session_external_uq" ON "messages" USING btree ("session_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_folders_path_uq" ON "project_folders" USING btree ("path");--> statement-breakpoint
CREATE INDEX "project_folders_project_idx" ON "project_folders" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_slug_uq" ON "projects" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "sessions_parent_idx" ON "sessions" USING btree ("parent_session_id");--> statement-breakpoint
CREATE INDEX "sessions_project_idx" ON "sessions" USING btree ("project_id","started_at");