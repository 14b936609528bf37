"""Offline stand-in for rules_proto (tessel uses no protobuf)."""

proto_library = native.proto_library
proto_lang_toolchain = native.proto_lang_toolchain
ProtoInfo = ProtoInfo
