# Offline stand-in for @rules_cc: Bazel 4.2.3's own toolchain files load this;
# the native rules are all we need (see ../shared/BUILD_NOTES.md).
cc_library = native.cc_library
cc_binary = native.cc_binary
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
cc_import = native.cc_import
cc_proto_library = native.cc_proto_library
