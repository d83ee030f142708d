#!/bin/sh
# One-shot MinIO setup for infra/compose.yaml (runs in the minio/mc image):
#   1. the bucket Meridian stores files and backups in (private: no anonymous access)
#   2. an application user that may use that bucket and nothing else
# Idempotent: safe to run on every `docker compose up`.
set -eu
: "${MINIO_ROOT_USER:?}" "${MINIO_ROOT_PASSWORD:?}" "${S3_BUCKET:?}" "${S3_ACCESS_KEY_ID:?}" "${S3_SECRET_ACCESS_KEY:?}"

mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD"
mc mb --ignore-existing "local/$S3_BUCKET"
mc anonymous set none "local/$S3_BUCKET"

cat > /tmp/meridian-policy.json <<POLICY
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
      "Resource": ["arn:aws:s3:::${S3_BUCKET}"]
    },
    {
      "Effect": "Allow",
      "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
      "Resource": ["arn:aws:s3:::${S3_BUCKET}/*"]
    }
  ]
}
POLICY
mc admin policy create local meridian-app /tmp/meridian-policy.json
mc admin user add local "$S3_ACCESS_KEY_ID" "$S3_SECRET_ACCESS_KEY"
# mc reports attaching an already attached policy as an error: accept that case only
# (shell built-ins only; the mc image has no grep).
if ! mc admin policy attach local meridian-app --user "$S3_ACCESS_KEY_ID"; then
  info="$(mc admin user info local "$S3_ACCESS_KEY_ID")"
  case "$info" in
    *meridian-app*) echo "policy meridian-app already attached" ;;
    *) echo "could not attach policy meridian-app to $S3_ACCESS_KEY_ID" >&2; exit 1 ;;
  esac
fi
echo "MinIO ready: bucket ${S3_BUCKET}, user ${S3_ACCESS_KEY_ID} (policy meridian-app)"
