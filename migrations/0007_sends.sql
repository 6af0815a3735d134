CREATE TABLE "catalogs" (
	"app_id" uuid NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "catalogs_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"app_id" uuid NOT NULL,
	"catalog_id" text NOT NULL,
	"product_retailer_id" text NOT NULL,
	"name" text NOT NULL,
	"price" numeric(14, 4) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_app_id_catalog_id_product_retailer_id_pk" PRIMARY KEY("app_id","catalog_id","product_retailer_id")
);
--> statement-breakpoint
CREATE TABLE "send_details" (
	"app_id" uuid NOT NULL,
	"message_id" text NOT NULL,
	"kind" text NOT NULL,
	"flow_token" text,
	"provider_message_id" text,
	"template_id" uuid,
	"payload" jsonb NOT NULL,
	"reply_message_id" text,
	"reply_response" jsonb,
	"replied_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "send_details_app_id_message_id_pk" PRIMARY KEY("app_id","message_id"),
	CONSTRAINT "send_details_kind" CHECK ("send_details"."kind" in ('flow', 'product_list', 'template'))
);
--> statement-breakpoint
CREATE TABLE "send_idempotency_keys" (
	"app_id" uuid NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response" jsonb,
	"claimed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "send_idempotency_keys_app_id_key_pk" PRIMARY KEY("app_id","key"),
	CONSTRAINT "send_idempotency_keys_state" CHECK ("send_idempotency_keys"."state" in ('in_flight', 'completed'))
);
--> statement-breakpoint
ALTER TABLE "catalogs" ADD CONSTRAINT "catalogs_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_catalog_fk" FOREIGN KEY ("app_id","catalog_id") REFERENCES "public"."catalogs"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "send_details" ADD CONSTRAINT "send_details_message_fk" FOREIGN KEY ("app_id","message_id") REFERENCES "public"."messages"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "send_idempotency_keys" ADD CONSTRAINT "send_idempotency_keys_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "send_details_app_flow_token_key" ON "send_details" USING btree ("app_id","flow_token");--> statement-breakpoint
CREATE UNIQUE INDEX "send_details_app_provider_message_key" ON "send_details" USING btree ("app_id","provider_message_id");--> statement-breakpoint
CREATE INDEX "send_idempotency_keys_app_created_idx" ON "send_idempotency_keys" USING btree ("app_id","created_at");