"""neardup.v1: protoc's messages and stubs of proto/neardup/v1/neardup.proto,
made at build time (neardup_pb2, neardup_pb2_grpc)."""
