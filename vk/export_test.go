//go:build cgo

package vk

// InstancesCreated counts the VkInstances this process has created.
func InstancesCreated() int {
	instances.mu.Lock()
	defer instances.mu.Unlock()
	return instances.created
}
